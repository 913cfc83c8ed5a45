"""VÁLKA card data: the bundled stand-in cards, the Quest bytecode, and bad-data errors."""

import copy
import itertools
import json
import re
import tomllib
from collections import Counter

import numpy as np
import pytest

from simkit.core.scenario import row_name
from simkit.errors import InputError
from simkit.games.valka.cards import (
    BUFF_TYPES, EVENT_KINDS, JOKER, WARBANDS, default_cards_path, load_cards)
from simkit.games.valka.quests import (
    ARGS, BRANCHES, MAX_DEPTH, OP_IF, OP_NAMES, OP_TEST_FATE, compile_effects, compile_quests, decompile, describe)

CARDS = load_cards()


# ---- the bundled data ---------------------------------------------------------------------------------------

def test_counts_match_the_rulebook():
    c = CARDS
    assert len(c.fighters) + len(c.buffs) + len(c.events) == 86
    assert (len(c.fighters), len(c.buffs), len(c.events), len(c.quests)) == (42, 22, 22, 36)
    bands = Counter(f.warband for f in c.fighters)
    assert bands == {**{w: 5 for w in range(len(WARBANDS))}, JOKER: 2}
    for w in range(len(WARBANDS)):
        assert len(c.warband_deck(w)) == 5 and len(c.fighter_deck(w)) == 37
    assert all(0 <= f.strike <= 6 and 0 <= f.shield <= 6 and 1 <= f.health <= 4 for f in c.fighters)
    gob = [f for f in c.fighters if f.name == "The Old Gob"]
    assert len(gob) == 1 and gob[0].warband_name == "goblins" and gob[0].health == 3
    assert {b.type for b in c.buffs} == {0, 1, 2} and all(1 <= b.value <= 3 for b in c.buffs)
    assert [(c.buffs[i].type, c.buffs[i].value) for i in c.starting_equipment()] == [(0, 1), (1, 1), (2, 1)]
    assert set(Counter(e.kind for e in c.events)) == set(range(len(EVENT_KINDS)))
    assert len(c.loot_deck) == 44
    assert len(c.locations) == 6 and sum(loc.south for loc in c.locations) == 2
    assert sum(loc.cards for loc in c.locations) == 30 == 18 + 12  # 18 Quests + 12 Fighters dealt at set-up
    reached = {i for i, loc in enumerate(c.locations) if loc.south}
    for _ in c.locations:
        reached |= {b for a, b in c.arrows if a in reached}
    assert reached == set(range(6))
    assert "STAND-IN" in c.notice and "STAND-IN" in default_cards_path().read_text(encoding="utf-8")[:200]
    a = c.arrays()
    assert a["fighter_health"].dtype == np.int32 and a["arrows"].shape == (len(c.arrows), 2)


def test_quests_use_every_op_both_conditions_and_both_signs():
    ops, who, signs = set(), set(), set()

    def walk(effects):
        for e in effects:
            ops.add(e["op"])
            who.update(w for w in ("played", "faced") if w in e)
            if e["op"] in ("krone", "stamina"):
                signs.add((e["op"], e["amount"] > 0))
            for b in BRANCHES.get(e["op"], ()):
                walk(e[b])

    for q in CARDS.quests:
        walk(q.effects)
    assert ops == set(OP_NAMES[1:]) and who == {"played", "faced"}
    assert signs == {("krone", True), ("krone", False), ("stamina", True), ("stamina", False)}


# ---- bytecode -----------------------------------------------------------------------------------------------

def test_every_quest_round_trips():
    code, offsets = compile_quests(CARDS.quests)
    assert code.dtype == np.int32 and offsets.dtype == np.int32
    assert len(offsets) == 37 and offsets[0] == 0 and offsets[-1] == len(code)
    assert (np.diff(offsets) > 0).all() and code.min() >= -99
    for i, q in enumerate(CARDS.quests):
        program = code[offsets[i]:offsets[i + 1]]
        assert decompile(program) == list(q.effects), q.key
        assert describe(program) == describe(list(q.effects))
        assert list(program) == compile_effects(decompile(program))


def test_layout_by_hand():
    effects = [{"op": "krone", "amount": -5},
               {"op": "if", "faced": "goblins", "then": [{"op": "marauder"}], "else": []},
               {"op": "test_fate", "even": [{"op": "gain_buff", "buff_type": "any", "value": 2}],
                "odd": [{"op": "move", "to": "random", "stamina_cost": 2}]},
               {"op": "market", "sells": ["buffs", "potion"], "recruit": True}]
    assert compile_effects(effects) == [1, -5, 11, 1, 2, 1, 0, 8, 3, 3, 3, 5, 3, 2, 9, 2, 2, 4, 0b10001, 1]
    assert describe(compile_effects(effects)).splitlines() == [
        "krone -5", "if faced goblins", "  then:", "    marauder", "test_fate", "  even:", "    gain_buff any +2",
        "  odd:", "    move random (stamina cost 2)", "market sells buffs, potion; recruit"]


def test_loot_ops_by_hand():
    """Issue 10: the Quest ops that hand out Loot: draw_loot (12, amount) and gain_event (13, Event kind index)."""
    effects = [{"op": "draw_loot", "amount": 2}, {"op": "gain_event", "kind": "thief"}]
    assert compile_effects(effects) == [12, 2, 13, 8]
    assert decompile(compile_effects(effects)) == effects
    assert describe(compile_effects(effects)).splitlines() == ["draw_loot 2", "gain_event thief"]


def _run_flat(program, fates, cond):
    """The non-recursive interpreter the module docstring describes; returns the plain ops it runs."""
    done, stack, pc = [], [], 0
    while pc < len(program):
        while stack and pc == stack[-1][0]:
            pc = stack.pop()[1]
        if pc >= len(program):
            break
        op = program[pc]
        if op in (OP_TEST_FATE, OP_IF):
            head = pc + (3 if op == OP_TEST_FATE else 5)
            na, nb = program[head - 2], program[head - 1]
            first = next(fates) if op == OP_TEST_FATE else cond(program[pc + 1], program[pc + 2])
            if first:
                stack.append((head + na, head + na + nb))
                assert len(stack) <= MAX_DEPTH
                pc = head
            else:
                pc = head + na
        else:
            n = 1 + len(ARGS[OP_NAMES[op]])
            done.append(tuple(program[pc:pc + n]))
            pc += n
    return done


def _run_tree(effects, fates, cond):
    done = []
    for e in effects:
        op = e["op"]
        if op in BRANCHES:
            if op == "test_fate":
                first = next(fates)
            else:
                who = "played" if "played" in e else "faced"
                first = cond(("played", "faced").index(who), WARBANDS.index(e[who]))
            done += _run_tree(e[BRANCHES[op][0 if first else 1]], fates, cond)
        else:
            done.append(tuple(compile_effects([e])))
    return done


@pytest.mark.parametrize("seed", range(4))
def test_flat_interpreter_skips_branches_by_length(seed):
    code, offsets = compile_quests(CARDS.quests)
    cond = lambda who, band: (who + band + seed) % 2 == 0  # noqa: E731
    for i, q in enumerate(CARDS.quests):
        program = [int(x) for x in code[offsets[i]:offsets[i + 1]]]
        pattern = [bool(seed >> k & 1) for k in range(2)] + [True, False]
        flat = _run_flat(program, itertools.cycle(pattern), cond)
        tree = _run_tree(q.effects, itertools.cycle(pattern), cond)
        assert flat == tree, q.key


# ---- bad data -----------------------------------------------------------------------------------------------

def _toml(value) -> str:
    """A tiny TOML writer: every value inline (enough for this file's data)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, str)):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"


def _write(path, data):
    path.write_text("\n".join(f"{k} = {_toml(v)}" for k, v in data.items()) + "\n", encoding="utf-8")


def _fighter(d, name):
    return next(f for f in d["fighters"] if f["name"] == name)


def _quest(d, key):
    return next(q for q in d["quests"] if q["key"] == key)


def _nest(depth):
    effects = [{"op": "krone", "amount": 1}]
    for _ in range(depth):
        effects = [{"op": "test_fate", "even": effects, "odd": []}]
    return effects


BAD = {  # name: (break the parsed data, the field named, a piece of the allowed values)
    "41 fighters": (lambda d: d["fighters"].pop(), "fighters", "exactly 42"),
    "6th goblin": (lambda d: _fighter(d, "Squire").update(warband="goblins"), "fighters[16].warband", "'joker'"),
    "unknown warband": (lambda d: d["fighters"][0].update(warband="orcs"), "fighters[0].warband", "'tree_beasts'"),
    "health 0": (lambda d: d["fighters"][3].update(health=0), "fighters[3].health", "at least 1"),
    "negative strike": (lambda d: d["fighters"][5].update(strike=-1), "fighters[5].strike", "at least 0"),
    "old gob": (lambda d: _fighter(d, "The Old Gob").update(health=2), "fighters[10].health", "base Health 3"),
    "duplicate key": (lambda d: d["fighters"][1].update(key="axe_maiden"), "fighters[1].key",
                      "already the key of fighters[0]"),
    "buff value 4": (lambda d: d["buffs"][7].update(value=4), "buffs[7].value", "1, 2, 3"),
    "buff type": (lambda d: d["buffs"][0].update(type="speed"), "buffs[0].type", "'health'"),
    "no +1 shield": (lambda d: [b.update(value=2) for b in d["buffs"] if b["type"] == "shield"], "buffs",
                     "+1 'shield'"),
    "event kind": (lambda d: d["events"][0].update(kind="fireball"), "events[0].kind", "'fireblast'"),
    "21 events": (lambda d: d["events"].pop(), "events", "exactly 22"),
    "35 quests": (lambda d: d["quests"].pop(), "quests", "exactly 36"),
    "3 south": (lambda d: d["locations"][2].update(south=True), "locations", "exactly 2"),
    "4 cards": (lambda d: d["locations"][4].update(cards=4), "locations[4].cards", "must be 5"),
    "arrow to nowhere": (lambda d: d["arrows"][0].__setitem__(1, "atlantis"), "arrows[0][1]", "'spine_mountains'"),
    "unreachable": (lambda d: d.update(arrows=[a for a in d["arrows"] if a[1] != "spine_mountains"]), "arrows",
                    "'spine_mountains'"),
    "unknown op": (lambda d: d["quests"][0]["effects"][0].update(op="gold"), "quests[0].effects[0].op", "'krone'"),
    "missing amount": (lambda d: d["quests"][0]["effects"][0].pop("amount"), "quests[0].effects[0].amount",
                       "from -99 to 99"),
    "extra field": (lambda d: d["quests"][3]["effects"][0].update(count=2), "quests[3].effects[0].count",
                    "allowed fields: op"),
    "krone 0": (lambda d: d["quests"][5]["effects"][0].update(amount=0), "quests[5].effects[0].amount", "not 0"),
    "damage 9": (lambda d: _quest(d, "rockslide")["effects"][0].update(amount=9), "quests[10].effects[0].amount",
                 "at most 4"),
    "buff value in quest": (lambda d: d["quests"][6]["effects"][0]["even"][0].update(value=5),
                            "quests[6].effects[0].even[0].value", "1, 2, 3"),
    "condition warband": (lambda d: d["quests"][4]["effects"][0].update(played="orcs"),
                          "quests[4].effects[0].played", "'goblins'"),
    "played and faced": (lambda d: d["quests"][4]["effects"][0].update(faced="monsters"),
                         "quests[4].effects[0].played", "exactly one"),
    "market goods": (lambda d: d["quests"][1]["effects"][0]["sells"].append("swords"),
                     "quests[1].effects[0].sells[3]", "'changeling'"),
    "move where": (lambda d: d["quests"][9]["effects"][0].update(to="north"), "quests[9].effects[0].to", "'random'"),
    "event to gain": (lambda d: _quest(d, "deserters")["effects"][1].update(kind="fireball"),
                      "quests[28].effects[1].kind", "'lightning_bolt'"),
    "loot to draw": (lambda d: _quest(d, "buried_cache")["effects"][1].update(amount=5),
                     "quests[16].effects[1].amount", "at most 3"),
    "too deep": (lambda d: d["quests"][0].update(effects=_nest(MAX_DEPTH + 1)),
                 "quests[0].effects[0]" + ".even[0]" * MAX_DEPTH + ".even", "at most 4"),
}


def test_nesting_at_the_limit_is_fine(tmp_path):
    data = tomllib.loads(default_cards_path().read_text(encoding="utf-8"))
    data["quests"][0]["effects"] = _nest(MAX_DEPTH)
    _write(tmp_path / "cards.toml", data)
    assert describe(compile_effects(load_cards(tmp_path / "cards.toml").quests[0].effects)).count("test_fate") == 4


def test_writer_round_trips_the_bundled_file(tmp_path):
    data = tomllib.loads(default_cards_path().read_text(encoding="utf-8"))
    _write(tmp_path / "cards.toml", data)
    assert load_cards(tmp_path / "cards.toml") == CARDS


@pytest.mark.parametrize("case", BAD)
def test_bad_data_names_file_and_field(tmp_path, case):
    breaker, field, allowed = BAD[case]
    data = copy.deepcopy(tomllib.loads(default_cards_path().read_text(encoding="utf-8")))
    breaker(data)
    path = tmp_path / "cards.toml"
    _write(path, data)
    with pytest.raises(InputError) as err:
        load_cards(path)
    msg = str(err.value)
    assert msg.startswith(f"{path}: field '{_named(field, data)}'"), msg
    assert allowed in msg, msg


def _named(field: str, data: dict) -> str:
    """A card is named by its key where it has a distinct one: 'fighters[16].warband' -> 'fighters.squire.warband'."""
    m = re.match(r"^(fighters|quests|locations)\[(\d+)\]", field)
    if not m:
        return field
    rows = data[m.group(1)]
    return m.group(1) + row_name(rows[int(m.group(2))], int(m.group(2)), [r.get("key") for r in rows]) \
        + field[m.end():]


def test_every_bad_card_is_reported_at_once_by_key(tmp_path):
    """Someone entering 42 Fighters fixes them in one pass: every wrong field of every card, each by card key and
    field, one line each on stderr, exit 2 (the old loader stopped at the first, as 'fighters[12].health')."""
    from click.testing import CliRunner

    from simkit.cli import cli

    data = copy.deepcopy(tomllib.loads(default_cards_path().read_text(encoding="utf-8")))
    raider = next(f for f in data["fighters"] if f["key"] == "raider_boss")
    raider["health"] = 0
    raider["shield"] = 12
    data["fighters"][0]["warband"] = "orcs"
    data["fighters"][5]["colour"] = "red"
    data["buffs"][7]["value"] = 4
    path = tmp_path / "cards.toml"
    _write(path, data)
    with pytest.raises(InputError) as err:
        load_cards(path)
    first = data["fighters"][0]["key"]
    want = [f"{path}: field 'fighters.raider_boss.health' must be at least 1 (got 0)",
            f"{path}: field 'fighters.raider_boss.shield' must be at most 9 (got 12)",
            f"{path}: field 'fighters.{first}.warband' must be one of",
            f"{path}: field 'fighters.{data['fighters'][5]['key']}.colour' is not a known field",
            f"{path}: field 'buffs[7].value' must be one of 1, 2, 3 (got 4)"]
    got = err.value.messages
    assert len(got) == len(want) and all(any(g.startswith(w) for g in got) for w in want), got
    scenario = tmp_path / "lq.toml"
    scenario.write_text((default_cards_path().parent / "lonequest.toml").read_text(encoding="utf-8")
                        .replace('cards = "cards.toml"', f'cards = "{path.as_posix()}"'), encoding="utf-8")
    assert f'cards = "{path.as_posix()}"' in scenario.read_text(encoding="utf-8")
    res = CliRunner().invoke(cli, ["run", str(scenario), "--games", "10", "--quiet"])
    lines = res.stderr.strip().splitlines() if hasattr(res, "stderr") else res.output.strip().splitlines()
    assert res.exit_code == 2 and len(lines) == len(want), res.output
    assert all(line.startswith("simkit: error: ") for line in lines)
    assert "fighters.raider_boss.health" in res.output and "fighters[" not in res.output


def test_text_replacement_breaks_old_gob_warband(tmp_path):
    text = default_cards_path().read_text(encoding="utf-8")
    old = 'name = "The Old Gob",         warband = "goblins"'
    assert old in text
    path = tmp_path / "cards.toml"
    path.write_text(text.replace(old, 'name = "The Old Gob",         warband = "monsters"'), encoding="utf-8")
    with pytest.raises(InputError, match=r"cards\.toml: field 'fighters\.old_gob\.warband'.*'goblins'"):
        load_cards(path)
