"""Valeria: Card Kingdoms card data, read from TOML (no numba: input errors are reported at once).

The rule text (../shared/rules/valeria-card-kingdoms-2e.txt) prints no cards. The bundled
``scenarios/valeria/cards.toml`` is STAND-IN data; :func:`load_cards` checks what the base rules fix (Starters
Peasant on 5 and Knight on 6; 10 Citizen roles in stacks of 5; 5 Monster areas; Domains in stacks of 3; at least
two Dukes per player for 5 players). The 5-player variant (``rules.five_player = "variant"``): a Monster or a
Domain marked ``five_player = true`` is in the game only at 5 players ("Each stack of Monster cards will contain 6
cards. Include the cards with [the 5-player mark]"; Domain stacks of 4): a marked Monster takes its place in its
area's stack in file order; the marked Domains, one per Domain stack, are shuffled in with the others.

The effect language
-------------------
A power is a list of effects ``{op = "...", ...}`` run in order. Citizen powers (``on_turn``: the active player's
Citizens; ``off_turn``: everyone else's):

  ``gain``      ``resource`` (gold | strength | magic) ``n``: take n of that Resource
  ``any``       ``n``: take n Resources, each of the owner's choice (a decision)
  ``steal``     ``n``: take up to n Gold from another player of the owner's choice (a decision; resolves first)
  ``per_role``  ``role``, ``resource``, ``n``: take n of the Resource per Citizen you own with that role icon

Monster ``reward`` and Domain ``build`` lists take ``gain`` only. A Domain's ``power = "adjust_die"`` lets its owner,
once per own Roll Phase, change one die by 1 (staying 1..6). Duke ``bonus`` entries ``{per, vp, every}`` score
``vp`` for every ``every`` (default 1) of ``per``: a role icon, ``monster``, ``domain``, or ``gold`` /
``strength`` / ``magic`` left at the end.

Monster Events (the 2E variant, ``rules.monster_events``): each ``[[monster_events]]`` card has an activation
``number`` 2..12, the ``strength`` and ``magic`` printed to slay it, its ``vp`` and ``reward`` (``gain`` only) as a
Monster, and an ``instruction``, a list of 1 to 2 effects carried out when it is in play and its number is rolled:

  ``place``     ``resource`` (gold | strength | magic), ``n``, ``on``: place n cardboard tokens of that Resource
                ``on = "choice"`` a Monster of the active player's choice (a decision: the top Monster of an
                area or an Event face up in a Center stack), ``"every"`` every such Monster, or ``"self"`` the
                Event itself
  ``all_gain``  ``resource``, ``n``: "All [player icon]": every player takes n of the Resource
  ``all_lose``  ``resource``, ``n``: every player returns n of the Resource, "if able" (what it holds)

An Event counts as a Monster for a Duke's ``monster`` bonus ("considered a Monster when a [Monster card-type
icon] icon is referenced on other cards").
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from simkit.core.scenario import Fields, Problems, read_toml

RESOURCES = ("gold", "strength", "magic")
N_ROLES, N_CITIZENS, N_AREAS, STACK_COPIES, DOMAIN_STACK = 4, 10, 5, 5, 3
MAX_MONSTERS_PER_AREA, MAX_DOMAINS, MAX_DUKES, MIN_DUKES = 5, 18, 16, 10
MAX_MONSTERS_FIVE = 6  # an area's stack at 5 players (the variant), its five_player Monsters included
MAX_EFFECTS, MAX_COST, MAX_N = 2, 12, 6
OPS = ("none", "gain", "any", "steal", "per_role")
OP_NONE, OP_GAIN, OP_ANY, OP_STEAL, OP_PER_ROLE = range(len(OPS))
POWERS = ("none", "adjust_die")
DUKE_PER_EXTRA = ("monster", "domain", "gold", "strength", "magic")
STARTERS = (("peasant", 5), ("knight", 6))  # "a Peasant (activates on 5), a Knight (6)"
PEASANT, KNIGHT = N_CITIZENS, N_CITIZENS + 1  # kind numbers of the Starters
N_KINDS = N_CITIZENS + len(STARTERS)

# packed tables (int32). A Citizen effect is 4 numbers: op, resource, role, n.
K_NUM0, K_NUM1, K_COST, K_ROLE, K_VP, K_STARTER, K_ON, K_OFF = 0, 1, 2, 3, 4, 5, 6, 6 + 4 * MAX_EFFECTS
KIND_COLS = K_OFF + 4 * MAX_EFFECTS
M_AREA, M_STR, M_MAG, M_VP, M_REWARD = 0, 1, 2, 3, 4  # reward: (resource, n) * MAX_EFFECTS
MON_COLS = M_REWARD + 2 * MAX_EFFECTS
D_COST, D_VP, D_REQ, D_BUILD, D_POWER = 0, 1, 2, 2 + N_ROLES, 2 + N_ROLES + 3  # build: n per resource
DOM_COLS = D_POWER + 1
EV_OPS = ("none", "place", "all_gain", "all_lose")
EOP_NONE, EOP_PLACE, EOP_ALL_GAIN, EOP_ALL_LOSE = range(len(EV_OPS))
PLACE_ON = ("choice", "every", "self")
ON_CHOICE, ON_EVERY, ON_SELF = range(len(PLACE_ON))
MAX_EVENTS, MIN_EVENTS, MAX_TOKENS = 10, 5, 3
# an Event: number, strength, magic, vp, reward (resource, n) * MAX_EFFECTS, instruction (op, resource, on, n) *
# MAX_EFFECTS
E_NUM, E_STR, E_MAG, E_VP, E_REWARD = 0, 1, 2, 3, 4
E_INSTR = E_REWARD + 2 * MAX_EFFECTS
EV_COLS = E_INSTR + 4 * MAX_EFFECTS
N_DUKE_CATS = N_ROLES + len(DUKE_PER_EXTRA)  # (vp, every) per category
DUKE_COLS = 2 * N_DUKE_CATS


@dataclass(frozen=True)
class CardSet:
    notice: str
    roles: tuple[str, ...]
    areas: tuple[str, ...]
    kinds: tuple[dict, ...]     # 10 Citizens then the 2 Starters
    monsters: tuple[dict, ...]  # area by area, top of each stack first
    domains: tuple[dict, ...]
    dukes: tuple[dict, ...]
    events: tuple[dict, ...] = ()  # Monster Events (the 2E variant)
    monsters_five: tuple[dict, ...] = ()  # every Monster at 5 players (the variant): area by area, top first
    domains_five: tuple[dict, ...] = ()   # the Domains marked five_player (dealt only at 5 players, the variant)

    def event_array(self) -> np.ndarray:
        """The Monster Events as an int32 table (``E_*`` columns); one all-zero row when there are none."""
        e = np.zeros((max(len(self.events), 1), EV_COLS), np.int32)
        for i, x in enumerate(self.events):
            e[i, :E_REWARD] = (x["number"], x["strength"], x["magic"], x["vp"])
            for j, (r, n) in enumerate(x["reward"]):
                e[i, E_REWARD + 2 * j:E_REWARD + 2 * j + 2] = (r, n)
            for j, eff in enumerate(x["instruction"]):
                e[i, E_INSTR + 4 * j:E_INSTR + 4 * j + 4] = eff
        return e

    def arrays(self, five: bool = False) -> tuple[np.ndarray, ...]:
        """``(kinds, monsters, domains, dukes, areas)`` int32 tables (column constants above); ``areas[a]`` is
        (first Monster, Monsters in the area). ``five``: the 5-player variant's tables (the Monsters and Domains
        marked ``five_player`` included, the marked Domains numbered after the others)."""
        monsters = self.monsters_five if five else self.monsters
        domains = self.domains + self.domains_five if five else self.domains
        k = np.zeros((len(self.kinds), KIND_COLS), np.int32)
        for i, c in enumerate(self.kinds):
            nums = list(c["numbers"]) + [0]
            k[i, :K_ON] = (nums[0], nums[1], c["cost"], c["role"], c["vp"], int(c["starter"]))
            for side, col in (("on_turn", K_ON), ("off_turn", K_OFF)):
                for j, e in enumerate(c[side]):
                    k[i, col + 4 * j:col + 4 * j + 4] = e
        m = np.zeros((len(monsters), MON_COLS), np.int32)
        for i, x in enumerate(monsters):
            m[i, :M_REWARD] = (x["area"], x["strength"], x["magic"], x["vp"])
            for j, (r, n) in enumerate(x["reward"]):
                m[i, M_REWARD + 2 * j:M_REWARD + 2 * j + 2] = (r, n)
        d = np.zeros((len(domains), DOM_COLS), np.int32)
        for i, x in enumerate(domains):
            d[i, D_COST], d[i, D_VP], d[i, D_POWER] = x["cost"], x["vp"], x["power"]
            d[i, D_REQ:D_REQ + N_ROLES] = x["requires"]
            for r, n in x["build"]:
                d[i, D_BUILD + r] += n
        u = np.zeros((len(self.dukes), DUKE_COLS), np.int32)
        for i, x in enumerate(self.dukes):
            for cat, vp, every in x["bonus"]:
                u[i, 2 * cat], u[i, 2 * cat + 1] = vp, every
        a = np.zeros((N_AREAS, 2), np.int32)
        for i, x in enumerate(monsters):
            if a[x["area"], 1] == 0:
                a[x["area"], 0] = i
            a[x["area"], 1] += 1
        return k, m, d, u, a


def default_cards_path() -> Path:
    from simkit.core.registry import scenarios_dir

    return scenarios_dir() / "valeria" / "cards.toml"


def _names(xs) -> str:
    return ", ".join(repr(x) for x in xs)


def _key(f: Fields, seen: set) -> str:
    key = f.get("key", str)
    if not key or key in seen:
        raise f.error("key", f"must be a distinct non-empty name (got {key!r})")
    seen.add(key)
    return key


def _effects(f: Fields, field: str, what: str, ops: tuple[str, ...], roles: tuple[str, ...], default=None):
    """A list of effects in the effect language: ``(op, resource, role, n)`` tuples."""
    raw = f.get(field, list, default) if default is not None else f.get(field, list)
    if len(raw) > MAX_EFFECTS or (default is None and not raw):
        raise f.error(field, f"of {what} must list 1 to {MAX_EFFECTS} effects (got {len(raw)})")
    out = []
    for j, e in enumerate(raw):
        if not isinstance(e, dict):
            raise f.error(f"{field}[{j}]", f"of {what} must be a table like {{op = \"gain\", resource = \"gold\", "
                                           f"n = 1}} (got {e!r})")
        ef = Fields(f.file, e, f"{f.prefix}{field}[{j}].")
        op = ef.get("op", str)
        if op not in ops:
            raise ef.error("op", f"of {what}: unknown op {op!r}; allowed ops: {', '.join(ops)}")
        res = role = 0
        if op in ("gain", "per_role"):
            res = RESOURCES.index(ef.get("resource", str, choices=RESOURCES))
        if op == "per_role":
            role = roles.index(ef.get("role", str, choices=roles))
        n = ef.get("n", int, min=1, max=MAX_N)
        ef.finish()
        out.append((OPS.index(op), res, role, n))
    return tuple(out)


def _numbers(f: Fields, what: str) -> tuple[int, ...]:
    nums = f.get("numbers", list)
    ok = (1 <= len(nums) <= 2 and all(isinstance(x, int) and not isinstance(x, bool) and 1 <= x <= 12 for x in nums)
          and len(set(nums)) == len(nums))
    if not ok:
        raise f.error("numbers", f"of {what} must be 1 or 2 different activation numbers 1..12, e.g. [5] or [9, 10] "
                                 f"(got {nums!r})")
    return tuple(nums)


def _rows(top: Fields, name: str) -> list[Fields]:
    value = top.get(name, list)
    for i, v in enumerate(value):
        if not isinstance(v, dict):
            raise top.error(f"{name}[{i}]", f"must be a table (got {v!r})")
    return top.rows(name, value)


def load_cards(path: str | Path | None = None) -> CardSet:
    """Read and check a cards file (default: the bundled stand-in ``scenarios/valeria/cards.toml``)."""
    path = Path(path) if path is not None else default_cards_path()
    data, _ = read_toml(path)
    problems = Problems()
    top = Fields(path, data, problems=problems)
    notice = top.get("notice", str)
    roles = top.get("roles", list)
    if len(roles) != N_ROLES or not all(isinstance(r, str) and r for r in roles) or len(set(roles)) != N_ROLES:
        raise top.error("roles", f"must list {N_ROLES} distinct role icon names (got {roles!r})")
    areas = top.get("areas", list)
    if len(areas) != N_AREAS or not all(isinstance(a, str) and a for a in areas) or len(set(areas)) != N_AREAS:
        raise top.error("areas", f"must list {N_AREAS} distinct Monster area names (got {areas!r})")
    roles, areas = tuple(roles), tuple(areas)
    keys: set[str] = set()
    citizen_ops = ("gain", "any", "steal", "per_role")
    kinds = []
    rows = _rows(top, "citizens")
    if len(rows) != N_CITIZENS:
        raise top.error("citizens", f"must list exactly {N_CITIZENS} Citizen roles (got {len(rows)})")
    for f in rows:
        with problems.row():
            key, name = _key(f, keys), f.get("name", str)
            what = f"Citizen {name!r}"
            kinds.append(dict(key=key, name=name, numbers=_numbers(f, what),
                              role=roles.index(f.get("role", str, choices=roles)),
                              cost=f.get("cost", int, min=0, max=MAX_COST), vp=f.get("vp", int, 0, min=0, max=MAX_N),
                              starter=False, on_turn=_effects(f, "on_turn", what, citizen_ops, roles),
                              off_turn=_effects(f, "off_turn", what, citizen_ops, roles)))
            f.finish()
    # every section is read whatever the ones before it hold, so that every problem is reported at once; a
    # section's count is checked only when its own cards were read without a problem (else it may follow from one)
    rows = _rows(top, "starters")
    before = len(problems.errors)
    for f in rows:
        with problems.row():
            key, name = _key(f, keys), f.get("name", str)
            what = f"Starter {name!r}"
            kinds.append(dict(key=key, name=name, numbers=_numbers(f, what), role=-1, cost=0, vp=0, starter=True,
                              on_turn=_effects(f, "on_turn", what, citizen_ops, roles),
                              off_turn=_effects(f, "off_turn", what, citizen_ops, roles)))
            f.finish()
    got = [(r.data.get("key"), r.data.get("numbers")) for r in rows]
    want = [(k, [n]) for k, n in STARTERS]
    if len(problems.errors) == before and got != want:  # one problem in a starter's row is reported once, there
        problems.add(top.error("starters", "must be the Peasant (key 'peasant', numbers [5]) and the Knight (key "
                                           f"'knight', numbers [6]), in that order (got {got!r})"))
    monsters = []
    before = len(problems.errors)
    for f in _rows(top, "monsters"):
        with problems.row():
            key, name = _key(f, keys), f.get("name", str)
            area = areas.index(f.get("area", str, choices=areas))
            st = f.get("strength", int, min=1, max=12)
            mg = f.get("magic", int, 0, min=0, max=MAX_N)
            vp = f.get("vp", int, min=0, max=12)
            reward = [(e[1], e[3]) for e in _effects(f, "reward", f"Monster {name!r}", ("gain",), roles, [])]
            five = f.get("five_player", bool, False)
            f.finish()
            monsters.append(dict(key=key, name=name, area=area, strength=st, magic=mg, vp=vp, reward=reward,
                                 five_player=five))
    for a, name in enumerate(areas):
        n = sum(m["area"] == a and not m["five_player"] for m in monsters)
        n5 = sum(m["area"] == a for m in monsters)
        if len(problems.errors) == before and not 1 <= n <= MAX_MONSTERS_PER_AREA:
            problems.add(top.error("monsters", f"must give area {name!r} 1 to {MAX_MONSTERS_PER_AREA} Monsters "
                                               f"(got {n})"))
        elif len(problems.errors) == before and n5 > MAX_MONSTERS_FIVE:
            problems.add(top.error("monsters", f"must give area {name!r} at most {MAX_MONSTERS_FIVE} Monsters with "
                                               f"those marked five_player (a stack of 6 at 5 players; got {n5})"))
    monsters.sort(key=lambda m: m["area"])  # stable: top of each stack first
    monsters_five = monsters
    monsters = [m for m in monsters if not m["five_player"]]
    domains = []
    before = len(problems.errors)
    for f in _rows(top, "domains"):
        with problems.row():
            key, name = _key(f, keys), f.get("name", str)
            cost = f.get("cost", int, min=0, max=MAX_COST)
            vp = f.get("vp", int, min=0, max=12)
            rq = f.table("requires", default={})
            req = tuple(rq.get(r, int, 0, min=0, max=5) for r in roles)
            rq.finish()
            build = [(e[1], e[3]) for e in _effects(f, "build", f"Domain {name!r}", ("gain",), roles, [])]
            power = POWERS.index(f.get("power", str, "none", choices=POWERS))
            five = f.get("five_player", bool, False)
            f.finish()
            domains.append(dict(key=key, name=name, cost=cost, vp=vp, requires=req, build=build, power=power,
                                five_player=five))
    domains_five = [d for d in domains if d["five_player"]]
    domains = [d for d in domains if not d["five_player"]]
    if len(problems.errors) == before and (not domains or len(domains) % DOMAIN_STACK or len(domains) > MAX_DOMAINS):
        problems.add(top.error("domains", f"must list a multiple of {DOMAIN_STACK} Domains, at most {MAX_DOMAINS} "
                                          f"(stacks of 2 face down + 1 face up; got {len(domains)})"))
    elif len(problems.errors) == before and len(domains_five) not in (0, len(domains) // DOMAIN_STACK):
        problems.add(top.error("domains", f"must mark none or {len(domains) // DOMAIN_STACK} Domains five_player = "
                                          f"true, one per stack (stacks of 3 face down + 1 face up at 5 players; got "
                                          f"{len(domains_five)})"))
    cats = roles + DUKE_PER_EXTRA
    dukes = []
    before = len(problems.errors)
    for f in _rows(top, "dukes"):
        with problems.row():
            key, name = _key(f, keys), f.get("name", str)
            raw = f.get("bonus", list)
            if not 1 <= len(raw) <= 3 or not all(isinstance(b, dict) for b in raw):
                raise f.error("bonus", f"of Duke {name!r} must list 1 to 3 tables like {{per = \"holy\", vp = 1}}")
            bonus = []
            for j, b in enumerate(raw):
                bf = Fields(f.file, b, f"{f.prefix}bonus[{j}].")
                bonus.append((cats.index(bf.get("per", str, choices=cats)), bf.get("vp", int, min=1, max=5),
                              bf.get("every", int, 1, min=1, max=10)))
                bf.finish()
            f.finish()
            dukes.append(dict(key=key, name=name, bonus=tuple(bonus)))
    if len(problems.errors) == before and not MIN_DUKES <= len(dukes) <= MAX_DUKES:
        problems.add(top.error("dukes", f"must list {MIN_DUKES} to {MAX_DUKES} Dukes (2 are dealt to each of up to 5 "
                                        f"players; got {len(dukes)})"))
    events = _events(top, keys, roles, problems)
    top.get("experiment", bool, False)
    top.finish()
    problems.check()
    return CardSet(notice, roles, areas, tuple(kinds), tuple(monsters), tuple(domains), tuple(dukes), tuple(events),
                   tuple(monsters_five), tuple(domains_five))


def _instruction(f: Fields, what: str) -> tuple:
    """An Event's instruction: 1 to ``MAX_EFFECTS`` effects ``(op, resource, on, n)`` of ``EV_OPS``."""
    raw = f.get("instruction", list)
    if not 1 <= len(raw) <= MAX_EFFECTS:
        raise f.error("instruction", f"of {what} must list 1 to {MAX_EFFECTS} effects (got {len(raw)})")
    out = []
    for j, e in enumerate(raw):
        if not isinstance(e, dict):
            raise f.error(f"instruction[{j}]", f"of {what} must be a table like {{op = \"place\", resource = "
                                               f"\"strength\", n = 1, on = \"choice\"}} (got {e!r})")
        ef = Fields(f.file, e, f"{f.prefix}instruction[{j}].")
        op = ef.get("op", str)
        ops = EV_OPS[1:]
        if op not in ops:
            raise ef.error("op", f"of {what}: unknown op {op!r}; allowed ops: {', '.join(ops)}")
        res = RESOURCES.index(ef.get("resource", str, choices=RESOURCES))
        on = PLACE_ON.index(ef.get("on", str, choices=PLACE_ON)) if op == "place" else 0
        n = ef.get("n", int, min=1, max=MAX_TOKENS)
        ef.finish()
        out.append((EV_OPS.index(op), res, on, n))
    return tuple(out)


def _events(top: Fields, keys: set, roles, problems) -> list[dict]:
    """The ``[[monster_events]]`` cards (none, or ``MIN_EVENTS`` to ``MAX_EVENTS``: one per player is shuffled into
    the Exhausted stack)."""
    if "monster_events" not in top.data:
        return []
    events = []
    before = len(problems.errors)
    for f in _rows(top, "monster_events"):
        with problems.row():
            key, name = _key(f, keys), f.get("name", str)
            what = f"Monster Event {name!r}"
            number = f.get("number", int, min=2, max=12)
            st = f.get("strength", int, min=1, max=12)
            mg = f.get("magic", int, 0, min=0, max=MAX_N)
            vp = f.get("vp", int, min=0, max=12)
            reward = [(e[1], e[3]) for e in _effects(f, "reward", what, ("gain",), roles, [])]
            instruction = _instruction(f, what)
            f.finish()
            events.append(dict(key=key, name=name, number=number, strength=st, magic=mg, vp=vp, reward=reward,
                               instruction=instruction))
    if len(problems.errors) == before and not MIN_EVENTS <= len(events) <= MAX_EVENTS:
        problems.add(top.error("monster_events", f"must list {MIN_EVENTS} to {MAX_EVENTS} Monster Events (1 per "
                                                 f"player is shuffled into the Exhausted stack, up to 5 players; got "
                                                 f"{len(events)})"))
    return events

