"""The Lonequest Quest effect language: parsing, int32 bytecode for numba, and back to text.

A Quest card in ``cards.toml``::

    [[quests]]
    key = "roadside_inn"
    name = "Roadside Inn"
    text = "A warm hearth. Test Fate: a good meal, or a bad bed."
    effects = [
      {op = "krone", amount = -5},
      {op = "test_fate", even = [{op = "stamina", amount = 2}], odd = [{op = "pickpocket", amount = 10}]},
    ]

Ops and their fields (all required unless a default is shown):

  krone       amount: -99..99, not 0            gain (or lose) Krone
  stamina     amount: -9..9, not 0              gain (or lose) Stamina
  test_fate   even: [effects], odd: [effects]   roll the white D10; not both empty
  market      sells: subset of MARKET_GOODS, recruit: bool = false   buy and trade here
  gain_buff   buff_type: strike|shield|health|any, value: 1..3       take that Buff from the Loot deck
  lose_buff   buff_type: strike|shield|health|any                    return one Buff to the Loot deck
  damage      amount: 1..4                      to the left-most Frontline Fighter
  marauder    (none)                            draw an extra Marauder from the Fighter deck: a battle
  move        to: back|start|random, stamina_cost: 0..9 = 0
              back = the previous Location, start = a southern Location,
              random = a random Location along the arrows
  pickpocket  amount: 1..99                     lose that much Krone unless a Thief Event protects you
  draw_loot   amount: 1..3                      draw that many random cards (Buffs or Events) from the Loot deck
  gain_event  kind: <event kind>                take an Event of that kind from the Loot deck (none if none is left)
  if          played = <warband> | faced = <warband> (exactly one),
              then: [effects] (not empty), else: [effects] = []
              "played": the Warband fighting for YOU; "faced": a Marauder of that Warband you have fought

Branch lists (even, odd, then, else) nest at most MAX_DEPTH = 4 deep.

BYTECODE
========
``compile_quests(quests) -> (code, offsets)``: ``code`` is one flat int32 array,
quest i's program is ``code[offsets[i]:offsets[i+1]]`` (``offsets`` has one more
entry than there are quests). A program is a sequence of instructions, each an
opcode followed by a fixed number of argument slots; opcode 0 is never used:

  code  op          slots after the opcode
   1    krone       amount
   2    stamina     amount
   3    test_fate   n_even, n_odd, <n_even ints: even block>, <n_odd ints: odd block>
   4    market      sells_mask (bit i = MARKET_GOODS[i]), recruit (0|1)
   5    gain_buff   buff_type (BUFF_TYPES index, 3 = any), value
   6    lose_buff   buff_type (BUFF_TYPES index, 3 = any)
   7    damage      amount
   8    marauder    -
   9    move        to (MOVE_TO index: 0 back, 1 start, 2 random), stamina_cost
  10    pickpocket  amount
  11    if          who (0 played, 1 faced), warband (WARBANDS index), n_then, n_else,
                    <n_then ints: then block>, <n_else ints: else block>
  12    draw_loot   amount
  13    gain_event  kind (EVENT_KINDS index)

Block lengths count int32 slots, so an interpreter skips a block by adding its
length. A loop without recursion: at ``test_fate`` (``if``) with the odd (else)
outcome jump to the start of the second block and carry on, as it ends where the
instruction ends; with the even (then) outcome step into the first block and
push (block_end, instruction_end) on a stack of MAX_DEPTH entries; whenever pc
reaches the top entry's block_end, pop it and set pc = instruction_end.
"""

from __future__ import annotations

import numpy as np

from simkit.core.scenario import Fields
from simkit.games.valka.cards import BUFF_TYPES, EVENT_KINDS, WARBANDS

OP_NAMES = ("", "krone", "stamina", "test_fate", "market", "gain_buff", "lose_buff", "damage", "marauder", "move",
            "pickpocket", "if", "draw_loot", "gain_event")
(OP_KRONE, OP_STAMINA, OP_TEST_FATE, OP_MARKET, OP_GAIN_BUFF, OP_LOSE_BUFF, OP_DAMAGE, OP_MARAUDER, OP_MOVE,
 OP_PICKPOCKET, OP_IF, OP_DRAW_LOOT, OP_GAIN_EVENT) = range(1, len(OP_NAMES))
MARKET_GOODS = ("buffs", "retreat", "reinforce", "changeling", "potion", "stamina")
MOVE_TO = ("back", "start", "random")
BUFF_CHOICES = BUFF_TYPES + ("any",)  # index 3 = BUFF_ANY
WHO = ("played", "faced")
MAX_DEPTH = 4

# op -> its plain argument fields in slot order (test_fate and if carry branches instead)
ARGS = {"krone": ("amount",), "stamina": ("amount",), "market": ("sells", "recruit"),
        "gain_buff": ("buff_type", "value"), "lose_buff": ("buff_type",), "damage": ("amount",), "marauder": (),
        "move": ("to", "stamina_cost"), "pickpocket": ("amount",), "draw_loot": ("amount",), "gain_event": ("kind",)}
BRANCHES = {"test_fate": ("even", "odd"), "if": ("then", "else")}
AMOUNTS = {"krone": (-99, 99), "stamina": (-9, 9), "damage": (1, 4), "pickpocket": (1, 99), "draw_loot": (1, 3)}


# ---- parsing --------------------------------------------------------------------------------------------------

def parse_effects(f: Fields, name: str, depth: int = 0, *, allow_empty: bool = False) -> list[dict]:
    """Read the effect list ``f[name]``, checking every op; return normalised effect tables."""
    value = f.get(name, list)
    if not value and not allow_empty:
        raise f.error(name, "must list at least one effect, e.g. [{op = \"krone\", amount = 10}]")
    return [_effect(Fields(f.file, e, f"{f.prefix}{name}[{i}].") if isinstance(e, dict)
                    else _not_table(f, f"{name}[{i}]", e), depth) for i, e in enumerate(value)]


def _not_table(f: Fields, name: str, value):
    raise f.error(name, f"must be an effect table like {{op = \"krone\", amount = 10}} (got {value!r})")


def _branch(f: Fields, name: str, depth: int, allow_empty: bool) -> list[dict]:
    if depth + 1 > MAX_DEPTH:
        raise f.error(name, f"nests branches {depth + 1} deep; at most {MAX_DEPTH} allowed")
    return parse_effects(f, name, depth + 1, allow_empty=allow_empty)


def _effect(f: Fields, depth: int) -> dict:
    op = f.get("op", str, choices=OP_NAMES[1:])
    e: dict = {"op": op}
    if op in AMOUNTS:
        lo, hi = AMOUNTS[op]
        if not f.has("amount"):
            not_zero = ", not 0" if lo < 0 else ""
            raise f.error("amount", f"is missing (expected an integer from {lo} to {hi}{not_zero})")
        e["amount"] = f.get("amount", int, min=lo, max=hi)
        if e["amount"] == 0:
            raise f.error("amount", f"must not be 0 (allowed: {lo}..{hi}, not 0)")
    elif op == "test_fate":
        e["even"], e["odd"] = (_branch(f, b, depth, True) for b in ("even", "odd"))
        if not e["even"] and not e["odd"]:
            raise f.error("even", "and 'odd' must not both be empty")
    elif op == "market":
        sells = f.get("sells", list)
        for i, s in enumerate(sells):
            if s not in MARKET_GOODS or s in sells[:i]:
                raise f.error(f"sells[{i}]", f"must be one of {_choices(MARKET_GOODS)}, each once (got {s!r})")
        e["sells"] = [g for g in MARKET_GOODS if g in sells]
        e["recruit"] = f.get("recruit", bool, False)
        if not sells and not e["recruit"]:
            raise f.error("sells", f"must name something for sale ({_choices(MARKET_GOODS)}) unless recruit = true")
    elif op in ("gain_buff", "lose_buff"):
        e["buff_type"] = f.get("buff_type", str, choices=BUFF_CHOICES)
        if op == "gain_buff":
            e["value"] = f.get("value", int, choices=(1, 2, 3))
    elif op == "gain_event":
        e["kind"] = f.get("kind", str, choices=EVENT_KINDS)
    elif op == "move":
        e["to"] = f.get("to", str, choices=MOVE_TO)
        e["stamina_cost"] = f.get("stamina_cost", int, 0, min=0, max=9)
    elif op == "if":
        who = [w for w in WHO if f.has(w)]
        if len(who) != 1:
            raise f.error("played", f"or 'faced': give exactly one of them, naming a Warband "
                          f"({_choices(WARBANDS)}) (got {who or 'neither'})")
        e[who[0]] = f.get(who[0], str, choices=WARBANDS)
        e["then"] = _branch(f, "then", depth, False)
        e["else"] = _branch(f, "else", depth, True) if f.has("else") else []
    f.finish()
    return e


def _choices(names) -> str:
    return ", ".join(repr(n) for n in names)


# ---- bytecode -------------------------------------------------------------------------------------------------

def _encode(name: str, value) -> int:
    if name == "sells":
        return sum(1 << MARKET_GOODS.index(g) for g in value)
    if name == "buff_type":
        return BUFF_CHOICES.index(value)
    if name == "to":
        return MOVE_TO.index(value)
    if name == "kind":
        return EVENT_KINDS.index(value)
    return int(value)


def _decode(name: str, slot: int):
    if name == "sells":
        return [g for i, g in enumerate(MARKET_GOODS) if slot >> i & 1]
    if name == "buff_type":
        return BUFF_CHOICES[slot]
    if name == "to":
        return MOVE_TO[slot]
    if name == "kind":
        return EVENT_KINDS[slot]
    if name == "recruit":
        return bool(slot)
    return slot


def compile_effects(effects) -> list[int]:
    """One quest's effects as a list of int32 slots (see the module docstring)."""
    out: list[int] = []
    for e in effects:
        op = e["op"]
        if op in BRANCHES:
            a, b = (compile_effects(e.get(n, [])) for n in BRANCHES[op])
            head = [OP_NAMES.index(op)]
            if op == "if":
                who = next(w for w in WHO if w in e)
                head += [WHO.index(who), WARBANDS.index(e[who])]
            out += head + [len(a), len(b)] + a + b
        else:
            out += [OP_NAMES.index(op)] + [_encode(n, e[n]) for n in ARGS[op]]
    return out


def compile_quests(quests) -> tuple[np.ndarray, np.ndarray]:
    """All quests (``Quest`` objects or effect lists) as (code int32[], offsets int32[len(quests) + 1])."""
    programs = [compile_effects(getattr(q, "effects", q)) for q in quests]
    offsets = np.zeros(len(programs) + 1, dtype=np.int32)
    offsets[1:] = np.cumsum([len(p) for p in programs])
    code = np.asarray([x for p in programs for x in p], dtype=np.int32)
    return code, offsets


def decompile(program) -> list[dict]:
    """Bytecode back to normalised effect tables (the inverse of :func:`compile_effects`)."""
    prog = [int(x) for x in program]
    effects, pc = [], 0
    while pc < len(prog):
        code = prog[pc]
        if not 0 < code < len(OP_NAMES):
            raise ValueError(f"bad opcode {code} at slot {pc}")
        op = OP_NAMES[code]
        e: dict = {"op": op}
        pc += 1
        if op in BRANCHES:
            if op == "if":
                e[WHO[prog[pc]]] = WARBANDS[prog[pc + 1]]
                pc += 2
            na, nb = prog[pc], prog[pc + 1]
            pc += 2
            e[BRANCHES[op][0]] = decompile(prog[pc:pc + na])
            e[BRANCHES[op][1]] = decompile(prog[pc + na:pc + na + nb])
            pc += na + nb
        else:
            for n in ARGS[op]:
                e[n] = _decode(n, prog[pc])
                pc += 1
        effects.append(e)
    return effects


def _line(e: dict) -> str:
    op = e["op"]
    if op in AMOUNTS:
        sign = "+" if op in ("krone", "stamina") and e["amount"] > 0 else ""
        return f"{op} {sign}{e['amount']}"
    if op == "market":
        return f"market sells {', '.join(e['sells']) or 'nothing'}" + ("; recruit" if e["recruit"] else "")
    if op == "gain_buff":
        return f"gain_buff {e['buff_type']} +{e['value']}"
    if op == "lose_buff":
        return f"lose_buff {e['buff_type']}"
    if op == "gain_event":
        return f"gain_event {e['kind']}"
    if op == "move":
        return f"move {e['to']} (stamina cost {e['stamina_cost']})"
    if op == "if":
        who = next(w for w in WHO if w in e)
        return f"if {who} {e[who]}"
    return op


def _describe(effects, indent: str) -> list[str]:
    lines = []
    for e in effects:
        lines.append(indent + _line(e))
        for b in BRANCHES.get(e["op"], ()):
            if e[b]:
                lines.append(f"{indent}  {b}:")
                lines += _describe(e[b], indent + "    ")
    return lines


def describe(program) -> str:
    """Bytecode (or a list of effect tables) as readable indented text, one effect a line."""
    effects = program if len(program) and isinstance(program[0], dict) else decompile(program)
    return "\n".join(_describe(effects, ""))
