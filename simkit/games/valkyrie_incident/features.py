"""The Valkyrie Incident's features for `learned` policies (``simkit.core.decision``: sparse feature vectors).

``features(s, env, a, is_base, st, idx, val)`` describes action ``a`` from what the mover sees (rules:
../shared/rules/valkyrie-incident.txt): its own hand, set-up picks and draft hand, the face-up zones (Barracks,
Wreckage, Piles, the cards played on Conflicts and the Strength abilities added there), the Emblems and Locations,
and the sizes of the hidden zones. It never reads the other seat's hand, Deck, picks or draft hand, the order of
any Deck, the Incident Deck's cards, the face-down Conflict cards or any Victory Card (only how many each seat
has). Slots::

    0                          is_base: the base heuristic plays ``a`` here
    1 .. 21                    is_base x the action's kind (CATEGORIES): how far to trust the heuristic, kind by kind
    22 .. 22 + 21 x 17 - 1     the action's kind x the state (SCALARS, 17): which kind of action pays when; in a
                               Blitz War also the hands' race (the mover's hand less the other's, -2 .. +2, one slot
                               each) and whether the other seat's Emblem ability is still unused
    NUMBERS                    the action's own numbers: a card's Strength, Clan and cost, a play's lead on its
                               Conflict before and after, an ability's swing and draws, a Location's gain, and
                               in a Blitz War what a change of lead is worth: whether the Conflict decides the
                               Location between the others (pivotal), whether the other seat has a card left to
                               answer, the lead beyond 4

The Blitz-only slots are 0 in the standard game (whose War gives two actions a turn and ends otherwise): its weights
were trained without them and play as before.
"""

from __future__ import annotations

from numba import njit

from simkit.core.decision import Parts
from simkit.games.valkyrie_incident.cards import (
    ASSAULT, C_CLAN, C_CODE, C_COST, C_STR, C_TARGET, C_TYPE, COGDRIVE, E_BONUS, E_CLAN, E_CODE, E_TARGET,
    LOC_NO_EMBLEM, LOC_STRENGTH, MAX_EFFECTS, OP_BOUNCE, OP_DESTROY, OP_DISCARD, OP_DRAFT_FREE, OP_DRAW, OP_RECRUIT,
    OP_STRENGTH, OP_VICTORY, OP_WEAKEN, OP_WRECK_CARD, TARGET_CONFLICT, VALKYRIE,
)

# what each decision's actions are, by kind (slot order of the category block)
CATEGORIES = ("pick", "emblem", "draw5", "shuffle4", "morale_yes", "morale_pass", "wreck", "wreck_pass", "draft",
              "draft_ability", "recruit_pass", "pay", "target", "location", "play", "cogdrive", "assault",
              "discard_draw", "emblem_ability", "discard_more", "discard_stop")
SCALARS = ("bias", "hand", "opp_hand", "deck", "pile", "opp_deck", "victory_lead", "locations_lead", "engagement",
           "incident_deck", "conflicts_led", "hands_behind2", "hands_behind1", "hands_even", "hands_ahead1",
           "hands_ahead2", "opp_emblem_ready")
NUMBERS = ("card_strength", "card_own_clan", "card_war_ability", "card_cost", "draws", "victory",
           "emblem_clan_cards", "emblem_bonus", "lead_before", "lead_after", "takes_lead", "was_leading",
           "contested", "swing", "opp_discards", "location_gain", "free_draft", "pivotal", "pivotal_takes_lead",
           "last_word_takes_lead", "excess_lead")
FEATURES = ("is_base", "is_base_x_pick", "is_base_x_emblem", "is_base_x_draw5", "is_base_x_shuffle4",
            "is_base_x_morale_yes", "is_base_x_morale_pass", "is_base_x_wreck", "is_base_x_wreck_pass",
            "is_base_x_draft", "is_base_x_draft_ability", "is_base_x_recruit_pass", "is_base_x_pay",
            "is_base_x_target", "is_base_x_location", "is_base_x_play", "is_base_x_cogdrive", "is_base_x_assault",
            "is_base_x_discard_draw", "is_base_x_emblem_ability", "is_base_x_discard_more", "is_base_x_discard_stop",
            "pick_x_bias", "pick_x_hand", "pick_x_opp_hand", "pick_x_deck", "pick_x_pile", "pick_x_opp_deck",
            "pick_x_victory_lead", "pick_x_locations_lead", "pick_x_engagement", "pick_x_incident_deck",
            "pick_x_conflicts_led", "pick_x_hands_behind2", "pick_x_hands_behind1", "pick_x_hands_even",
            "pick_x_hands_ahead1", "pick_x_hands_ahead2", "pick_x_opp_emblem_ready", "emblem_x_bias", "emblem_x_hand",
            "emblem_x_opp_hand", "emblem_x_deck", "emblem_x_pile", "emblem_x_opp_deck", "emblem_x_victory_lead",
            "emblem_x_locations_lead", "emblem_x_engagement", "emblem_x_incident_deck", "emblem_x_conflicts_led",
            "emblem_x_hands_behind2", "emblem_x_hands_behind1", "emblem_x_hands_even", "emblem_x_hands_ahead1",
            "emblem_x_hands_ahead2", "emblem_x_opp_emblem_ready", "draw5_x_bias", "draw5_x_hand", "draw5_x_opp_hand",
            "draw5_x_deck", "draw5_x_pile", "draw5_x_opp_deck", "draw5_x_victory_lead", "draw5_x_locations_lead",
            "draw5_x_engagement", "draw5_x_incident_deck", "draw5_x_conflicts_led", "draw5_x_hands_behind2",
            "draw5_x_hands_behind1", "draw5_x_hands_even", "draw5_x_hands_ahead1", "draw5_x_hands_ahead2",
            "draw5_x_opp_emblem_ready", "shuffle4_x_bias", "shuffle4_x_hand", "shuffle4_x_opp_hand",
            "shuffle4_x_deck", "shuffle4_x_pile", "shuffle4_x_opp_deck", "shuffle4_x_victory_lead",
            "shuffle4_x_locations_lead", "shuffle4_x_engagement", "shuffle4_x_incident_deck",
            "shuffle4_x_conflicts_led", "shuffle4_x_hands_behind2", "shuffle4_x_hands_behind1",
            "shuffle4_x_hands_even", "shuffle4_x_hands_ahead1", "shuffle4_x_hands_ahead2",
            "shuffle4_x_opp_emblem_ready", "morale_yes_x_bias", "morale_yes_x_hand", "morale_yes_x_opp_hand",
            "morale_yes_x_deck", "morale_yes_x_pile", "morale_yes_x_opp_deck", "morale_yes_x_victory_lead",
            "morale_yes_x_locations_lead", "morale_yes_x_engagement", "morale_yes_x_incident_deck",
            "morale_yes_x_conflicts_led", "morale_yes_x_hands_behind2", "morale_yes_x_hands_behind1",
            "morale_yes_x_hands_even", "morale_yes_x_hands_ahead1", "morale_yes_x_hands_ahead2",
            "morale_yes_x_opp_emblem_ready", "morale_pass_x_bias", "morale_pass_x_hand", "morale_pass_x_opp_hand",
            "morale_pass_x_deck", "morale_pass_x_pile", "morale_pass_x_opp_deck", "morale_pass_x_victory_lead",
            "morale_pass_x_locations_lead", "morale_pass_x_engagement", "morale_pass_x_incident_deck",
            "morale_pass_x_conflicts_led", "morale_pass_x_hands_behind2", "morale_pass_x_hands_behind1",
            "morale_pass_x_hands_even", "morale_pass_x_hands_ahead1", "morale_pass_x_hands_ahead2",
            "morale_pass_x_opp_emblem_ready", "wreck_x_bias", "wreck_x_hand", "wreck_x_opp_hand", "wreck_x_deck",
            "wreck_x_pile", "wreck_x_opp_deck", "wreck_x_victory_lead", "wreck_x_locations_lead",
            "wreck_x_engagement", "wreck_x_incident_deck", "wreck_x_conflicts_led", "wreck_x_hands_behind2",
            "wreck_x_hands_behind1", "wreck_x_hands_even", "wreck_x_hands_ahead1", "wreck_x_hands_ahead2",
            "wreck_x_opp_emblem_ready", "wreck_pass_x_bias", "wreck_pass_x_hand", "wreck_pass_x_opp_hand",
            "wreck_pass_x_deck", "wreck_pass_x_pile", "wreck_pass_x_opp_deck", "wreck_pass_x_victory_lead",
            "wreck_pass_x_locations_lead", "wreck_pass_x_engagement", "wreck_pass_x_incident_deck",
            "wreck_pass_x_conflicts_led", "wreck_pass_x_hands_behind2", "wreck_pass_x_hands_behind1",
            "wreck_pass_x_hands_even", "wreck_pass_x_hands_ahead1", "wreck_pass_x_hands_ahead2",
            "wreck_pass_x_opp_emblem_ready", "draft_x_bias", "draft_x_hand", "draft_x_opp_hand", "draft_x_deck",
            "draft_x_pile", "draft_x_opp_deck", "draft_x_victory_lead", "draft_x_locations_lead",
            "draft_x_engagement", "draft_x_incident_deck", "draft_x_conflicts_led", "draft_x_hands_behind2",
            "draft_x_hands_behind1", "draft_x_hands_even", "draft_x_hands_ahead1", "draft_x_hands_ahead2",
            "draft_x_opp_emblem_ready", "draft_ability_x_bias", "draft_ability_x_hand", "draft_ability_x_opp_hand",
            "draft_ability_x_deck", "draft_ability_x_pile", "draft_ability_x_opp_deck",
            "draft_ability_x_victory_lead", "draft_ability_x_locations_lead", "draft_ability_x_engagement",
            "draft_ability_x_incident_deck", "draft_ability_x_conflicts_led", "draft_ability_x_hands_behind2",
            "draft_ability_x_hands_behind1", "draft_ability_x_hands_even", "draft_ability_x_hands_ahead1",
            "draft_ability_x_hands_ahead2", "draft_ability_x_opp_emblem_ready", "recruit_pass_x_bias",
            "recruit_pass_x_hand", "recruit_pass_x_opp_hand", "recruit_pass_x_deck", "recruit_pass_x_pile",
            "recruit_pass_x_opp_deck", "recruit_pass_x_victory_lead", "recruit_pass_x_locations_lead",
            "recruit_pass_x_engagement", "recruit_pass_x_incident_deck", "recruit_pass_x_conflicts_led",
            "recruit_pass_x_hands_behind2", "recruit_pass_x_hands_behind1", "recruit_pass_x_hands_even",
            "recruit_pass_x_hands_ahead1", "recruit_pass_x_hands_ahead2", "recruit_pass_x_opp_emblem_ready",
            "pay_x_bias", "pay_x_hand", "pay_x_opp_hand", "pay_x_deck", "pay_x_pile", "pay_x_opp_deck",
            "pay_x_victory_lead", "pay_x_locations_lead", "pay_x_engagement", "pay_x_incident_deck",
            "pay_x_conflicts_led", "pay_x_hands_behind2", "pay_x_hands_behind1", "pay_x_hands_even",
            "pay_x_hands_ahead1", "pay_x_hands_ahead2", "pay_x_opp_emblem_ready", "target_x_bias", "target_x_hand",
            "target_x_opp_hand", "target_x_deck", "target_x_pile", "target_x_opp_deck", "target_x_victory_lead",
            "target_x_locations_lead", "target_x_engagement", "target_x_incident_deck", "target_x_conflicts_led",
            "target_x_hands_behind2", "target_x_hands_behind1", "target_x_hands_even", "target_x_hands_ahead1",
            "target_x_hands_ahead2", "target_x_opp_emblem_ready", "location_x_bias", "location_x_hand",
            "location_x_opp_hand", "location_x_deck", "location_x_pile", "location_x_opp_deck",
            "location_x_victory_lead", "location_x_locations_lead", "location_x_engagement",
            "location_x_incident_deck", "location_x_conflicts_led", "location_x_hands_behind2",
            "location_x_hands_behind1", "location_x_hands_even", "location_x_hands_ahead1", "location_x_hands_ahead2",
            "location_x_opp_emblem_ready", "play_x_bias", "play_x_hand", "play_x_opp_hand", "play_x_deck",
            "play_x_pile", "play_x_opp_deck", "play_x_victory_lead", "play_x_locations_lead", "play_x_engagement",
            "play_x_incident_deck", "play_x_conflicts_led", "play_x_hands_behind2", "play_x_hands_behind1",
            "play_x_hands_even", "play_x_hands_ahead1", "play_x_hands_ahead2", "play_x_opp_emblem_ready",
            "cogdrive_x_bias", "cogdrive_x_hand", "cogdrive_x_opp_hand", "cogdrive_x_deck", "cogdrive_x_pile",
            "cogdrive_x_opp_deck", "cogdrive_x_victory_lead", "cogdrive_x_locations_lead", "cogdrive_x_engagement",
            "cogdrive_x_incident_deck", "cogdrive_x_conflicts_led", "cogdrive_x_hands_behind2",
            "cogdrive_x_hands_behind1", "cogdrive_x_hands_even", "cogdrive_x_hands_ahead1", "cogdrive_x_hands_ahead2",
            "cogdrive_x_opp_emblem_ready", "assault_x_bias", "assault_x_hand", "assault_x_opp_hand", "assault_x_deck",
            "assault_x_pile", "assault_x_opp_deck", "assault_x_victory_lead", "assault_x_locations_lead",
            "assault_x_engagement", "assault_x_incident_deck", "assault_x_conflicts_led", "assault_x_hands_behind2",
            "assault_x_hands_behind1", "assault_x_hands_even", "assault_x_hands_ahead1", "assault_x_hands_ahead2",
            "assault_x_opp_emblem_ready", "discard_draw_x_bias", "discard_draw_x_hand", "discard_draw_x_opp_hand",
            "discard_draw_x_deck", "discard_draw_x_pile", "discard_draw_x_opp_deck", "discard_draw_x_victory_lead",
            "discard_draw_x_locations_lead", "discard_draw_x_engagement", "discard_draw_x_incident_deck",
            "discard_draw_x_conflicts_led", "discard_draw_x_hands_behind2", "discard_draw_x_hands_behind1",
            "discard_draw_x_hands_even", "discard_draw_x_hands_ahead1", "discard_draw_x_hands_ahead2",
            "discard_draw_x_opp_emblem_ready", "emblem_ability_x_bias", "emblem_ability_x_hand",
            "emblem_ability_x_opp_hand", "emblem_ability_x_deck", "emblem_ability_x_pile",
            "emblem_ability_x_opp_deck", "emblem_ability_x_victory_lead", "emblem_ability_x_locations_lead",
            "emblem_ability_x_engagement", "emblem_ability_x_incident_deck", "emblem_ability_x_conflicts_led",
            "emblem_ability_x_hands_behind2", "emblem_ability_x_hands_behind1", "emblem_ability_x_hands_even",
            "emblem_ability_x_hands_ahead1", "emblem_ability_x_hands_ahead2", "emblem_ability_x_opp_emblem_ready",
            "discard_more_x_bias", "discard_more_x_hand", "discard_more_x_opp_hand", "discard_more_x_deck",
            "discard_more_x_pile", "discard_more_x_opp_deck", "discard_more_x_victory_lead",
            "discard_more_x_locations_lead", "discard_more_x_engagement", "discard_more_x_incident_deck",
            "discard_more_x_conflicts_led", "discard_more_x_hands_behind2", "discard_more_x_hands_behind1",
            "discard_more_x_hands_even", "discard_more_x_hands_ahead1", "discard_more_x_hands_ahead2",
            "discard_more_x_opp_emblem_ready", "discard_stop_x_bias", "discard_stop_x_hand",
            "discard_stop_x_opp_hand", "discard_stop_x_deck", "discard_stop_x_pile", "discard_stop_x_opp_deck",
            "discard_stop_x_victory_lead", "discard_stop_x_locations_lead", "discard_stop_x_engagement",
            "discard_stop_x_incident_deck", "discard_stop_x_conflicts_led", "discard_stop_x_hands_behind2",
            "discard_stop_x_hands_behind1", "discard_stop_x_hands_even", "discard_stop_x_hands_ahead1",
            "discard_stop_x_hands_ahead2", "discard_stop_x_opp_emblem_ready", "card_strength", "card_own_clan",
            "card_war_ability", "card_cost", "draws", "victory", "emblem_clan_cards", "emblem_bonus", "lead_before",
            "lead_after", "takes_lead", "was_leading", "contested", "swing", "opp_discards", "location_gain",
            "free_draft", "pivotal", "pivotal_takes_lead", "last_word_takes_lead", "excess_lead")  # a literal (registry.literal_from_source reads it without importing numba)
N_CAT = len(CATEGORIES)
N_SCALARS = len(SCALARS)
BASE0 = 1
CAT0 = BASE0 + N_CAT
NUM0 = CAT0 + N_CAT * N_SCALARS
N_FEATURES = len(FEATURES)
assert FEATURES == tuple(["is_base"] + [f"is_base_x_{c}" for c in CATEGORIES]
                         + [f"{c}_x_{k}" for c in CATEGORIES for k in SCALARS] + list(NUMBERS))
MAX_NNZ = 2 + N_SCALARS + 12
(CARD_STRENGTH, CARD_OWN_CLAN, CARD_WAR_ABILITY, CARD_COST, DRAWS, VICTORY, EMBLEM_CLAN_CARDS, EMBLEM_BONUS,
 LEAD_BEFORE, LEAD_AFTER, TAKES_LEAD, WAS_LEADING, CONTESTED, SWING, OPP_DISCARDS, LOCATION_GAIN, FREE_DRAFT, PIVOTAL,
 PIVOTAL_TAKES_LEAD, LAST_WORD_TAKES_LEAD, EXCESS_LEAD) = \
    range(NUM0, NUM0 + len(NUMBERS))
(K_PICK, K_EMBLEM, K_DRAW5, K_SHUFFLE4, K_MORALE_YES, K_MORALE_PASS, K_WRECK, K_WRECK_PASS, K_DRAFT,
 K_DRAFT_ABILITY, K_RECRUIT_PASS, K_PAY, K_TARGET, K_LOCATION, K_PLAY, K_COGDRIVE, K_ASSAULT, K_DISCARD_DRAW,
 K_EMBLEM_ABILITY, K_DISCARD_MORE, K_DISCARD_STOP) = range(N_CAT)


@njit(cache=True, _nrt=False)
def category(s, env, a):
    """The kind of action ``a`` at the pending decision (an index into CATEGORIES)."""
    ph = s[E.PHASE]
    if ph == E.P_PICK:
        return K_PICK
    if ph == E.P_EMBLEM:
        return K_EMBLEM
    if ph == E.P_DRAWCHOICE:
        return K_SHUFFLE4 if a == E.A_SHUFFLE4 else K_DRAW5
    if ph == E.P_MORALE:
        return K_MORALE_YES if a == E.A_YES else K_MORALE_PASS
    if ph == E.P_WRECK:
        return K_WRECK_PASS if a == E.A_PASS else K_WRECK
    if ph == E.P_RECRUIT:
        if a == E.A_PASS:
            return K_RECRUIT_PASS
        return K_DRAFT if a >= E.A_SLOT else K_DRAFT_ABILITY
    if ph == E.P_PAY:
        return K_PAY
    if ph == E.P_DTARGET:
        return K_TARGET
    if ph == E.P_LOCATION:
        return K_LOCATION
    if ph == E.P_DISCARD:
        return K_DISCARD_STOP if a == E.A_PASS else K_DISCARD_MORE
    # P_WAR
    if a >= E.A_EMBL:
        return K_EMBLEM_ABILITY
    if a >= E.A_WDISC:
        return K_DISCARD_DRAW
    if a >= E.A_ABIL:
        return K_COGDRIVE if env[0][(a - E.A_ABIL) // 5, C_TYPE] == COGDRIVE else K_ASSAULT
    return K_PLAY


@njit(cache=True, _nrt=False)
def _put(idx, val, m, slot, value):
    idx[m] = slot
    val[m] = value
    return m + 1


# the decision's shared numbers (``state``): in a War decision the mover's lead on each Conflict, whether the
# other seat has played on it, and how many Conflicts the mover leads less how many it trails
LEAD0 = 0
PLAYED0 = LEAD0 + 5
LED = PLAYED0 + 5
N_STATE = LED + 1


@njit(cache=True, inline="always", _nrt=False)
def state(s, env, st):
    """The War as the mover sees it from the face-up played cards and the Strength abilities added, once per
    decision (every action of a War decision reads it): its side's Strength less the other's on each Conflict,
    whether the other seat has played there, and how many Conflicts it leads less how many it trails; zeros
    outside the War. No allocation."""
    for k in range(N_STATE):
        st[k] = 0.0
    ph = s[E.PHASE]
    if ph != E.P_WAR and ph != E.P_DISCARD:
        return
    p = s[E.TO_MOVE]
    for q in range(2):
        sign = 1 if q == p else -1
        for i in range(s[E.N_PLAYED + q]):
            k = s[E.PLAYK + q * E.NC + i]
            st[LEAD0 + k] += sign * s[E.PLAYSTR + q * E.NC + i]
            if q != p:
                st[PLAYED0 + k] = 1.0
    o = 1 - p
    led = 0
    for k in range(s[E.NCONF]):
        v = int(st[LEAD0 + k]) + s[E.TOK + p * E.MAX_CONF + k] - s[E.TOK + o * E.MAX_CONF + k]
        st[LEAD0 + k] = v
        led += (v > 0) - (v < 0)
    st[LED] = led


@njit(cache=True, _nrt=False)
def _lead(s, st, tk):
    """The mover's lead on Conflict ``tk`` (0 when ``tk`` < 0) and whether the other seat played there, from
    ``state``."""
    if tk < 0:
        return 0, 0
    return (int(st[LEAD0 + tk]) if tk < s[E.NCONF] else 0), int(st[PLAYED0 + tk])


@njit(cache=True, inline="always", _nrt=False)
def _stakes(s, st, tk, lk, gain, m, idx, val):
    """Blitz: what a Strength change ``gain`` on Conflict ``tk`` (the mover's lead ``lk`` there) is worth beyond the lead:
    whether the Conflict decides the Location between the others' leads (``pivotal``, and with the lead taken),
    whether the lead is taken where the other seat has no card left to answer, and the lead beyond 4."""
    p = s[E.TO_MOVE]
    led = int(st[LED]) - ((lk > 0) - (lk < 0))  # the Conflicts led less those trailed, ``tk`` left out
    takes = lk <= 0 < lk + gain
    if -1 <= led <= 1:
        m = _put(idx, val, m, PIVOTAL, 1.0)
        if takes:
            m = _put(idx, val, m, PIVOTAL_TAKES_LEAD, 1.0)
    if takes and s[E.N_HAND + 1 - p] == 0:
        m = _put(idx, val, m, LAST_WORD_TAKES_LEAD, 1.0)
    if lk + gain > 4:
        m = _put(idx, val, m, EXCESS_LEAD, (lk + gain - 4) / 5.0)
    return m


@njit(cache=True, _nrt=False)
def _card(env, c, clan, m, idx, val):
    """A card's own numbers: Strength, whether it is of the mover's Clan, whether it has a War ability, its cost."""
    cards = env[0]
    t = cards[c, C_TYPE]
    m = _put(idx, val, m, CARD_STRENGTH, cards[c, C_STR] / 5.0)
    if cards[c, C_CLAN] == clan:
        m = _put(idx, val, m, CARD_OWN_CLAN, 1.0)
    if t == COGDRIVE or t == ASSAULT:
        m = _put(idx, val, m, CARD_WAR_ABILITY, 1.0)
    if cards[c, C_COST] > 0:
        m = _put(idx, val, m, CARD_COST, cards[c, C_COST] / 3.0)
    return m


@njit(cache=True, inline="always", _nrt=False)
def _war_ability(s, env, p, code, k, lk, ck, st, m, idx, val):
    """A War ability aimed at Conflict ``k`` (``k`` < 0: none): the lead it changes, the cards it draws (at most
    the Deck's size), the cards it makes the other seat discard."""
    o = 1 - p
    swing = 0
    draws = 0
    disc = 0
    for j in range(MAX_EFFECTS):
        op = code[2 * j]
        n = code[2 * j + 1]
        if op == OP_DRAW:
            draws += n
        elif op == OP_STRENGTH or op == OP_WEAKEN:
            swing += n
        elif (op == OP_DESTROY or op == OP_WRECK_CARD or op == OP_BOUNCE) and k >= 0:
            i = E._target_card(s, env, o, k, n)
            if i >= 0:
                swing += s[E.PLAYSTR + o * E.NC + i]
        elif op == OP_DISCARD:
            disc += min(n, s[E.N_HAND + o])
    if draws > 0:
        m = _put(idx, val, m, DRAWS, min(draws, s[E.N_DECK + p]) / 3.0)
    if disc > 0:
        m = _put(idx, val, m, OPP_DISCARDS, disc / 2.0)
    if k >= 0 and k < s[E.NCONF]:
        m = _put(idx, val, m, SWING, swing / 5.0)
        m = _put(idx, val, m, LEAD_BEFORE, lk / 5.0)
        m = _put(idx, val, m, LEAD_AFTER, (lk + swing) / 5.0)
        if lk <= 0 < lk + swing:
            m = _put(idx, val, m, TAKES_LEAD, 1.0)
        if ck:
            m = _put(idx, val, m, CONTESTED, 1.0)
        if env[3][E.R_BLITZ]:
            m = _stakes(s, st, k, lk, swing, m, idx, val)
    return m


@njit(cache=True, _nrt=False)
def features(s, env, a, is_base, st, idx, val):
    """The non-zero features of action ``a`` (see the module docstring) from the decision's ``state`` ``st``:
    is_base, then ``block``, then ``numbers``; returns how many."""
    m = 0
    cat = category(s, env, a)
    if is_base:
        m = _put(idx, val, m, 0, 1.0)
        m = _put(idx, val, m, BASE0 + cat, 1.0)
    m = block(s, env, cat, st, idx, val, m)
    return numbers(s, env, a, cat, st, idx, val, m)


@njit(cache=True, _nrt=False)
def block(s, env, cat, st, idx, val, m):
    """The state crossed with the action's kind ``cat``, counts of hidden zones only (the same for every action of
    that kind here; ``st``: the decision's ``state``)."""
    p = s[E.TO_MOVE]
    o = 1 - p
    ph = s[E.PHASE]
    led = int(st[LED]) if ph == E.P_WAR or ph == E.P_DISCARD else 0
    base = CAT0 + cat * N_SCALARS
    m = _put(idx, val, m, base, 1.0)
    m = _put(idx, val, m, base + 1, s[E.N_HAND + p] / 7.0)
    m = _put(idx, val, m, base + 2, s[E.N_HAND + o] / 7.0)
    m = _put(idx, val, m, base + 3, s[E.N_DECK + p] / 15.0)
    m = _put(idx, val, m, base + 4, s[E.N_PILE + p] / 15.0)
    m = _put(idx, val, m, base + 5, s[E.N_DECK + o] / 15.0)
    m = _put(idx, val, m, base + 6, (s[E.N_VICT + p] - s[E.N_VICT + o]) / 4.0)
    m = _put(idx, val, m, base + 7, (s[E.LOCWON + p] - s[E.LOCWON + o]) / 2.0)
    m = _put(idx, val, m, base + 8, s[E.ENG] / 3.0)
    m = _put(idx, val, m, base + 9, s[E.N_IDECK] / 60.0)
    m = _put(idx, val, m, base + 10, led / 4.0)
    if ph == E.P_WAR and env[3][E.R_BLITZ]:
        # the Blitz hands' race (one action a turn; the War ends when a hand runs out, the other seat taking one
        # more turn): an action that keeps the mover's cards in hand (an Emblem ability) costs nothing only when
        # the hands are even
        d = s[E.N_HAND + p] - s[E.N_HAND + o]
        m = _put(idx, val, m, base + 13 + max(-2, min(2, d)), 1.0)
        if not s[E.EMB_USED + o]:
            m = _put(idx, val, m, base + 16, 1.0)
    return m


@njit(cache=True, inline="always", _nrt=False)
def numbers(s, env, a, cat, st, idx, val, m):
    """The action's own numbers (NUMBERS), after ``m`` features written (``st``: the decision's ``state``)."""
    cards, emblems, locs = env[0], env[1], env[2]
    p = s[E.TO_MOVE]
    o = 1 - p
    ph = s[E.PHASE]
    nk = s[E.NCONF]
    tk = -1  # the Conflict the action aims at
    if cat == K_PLAY:
        tk = (a - E.A_PLAY) % 5
    elif cat == K_COGDRIVE or cat == K_ASSAULT:
        if nk > 0 and cards[(a - E.A_ABIL) // 5, C_TARGET] == TARGET_CONFLICT:
            tk = (a - E.A_ABIL) % 5
    elif cat == K_EMBLEM_ABILITY:
        if nk > 0 and emblems[s[E.EMB + p], E_TARGET] == TARGET_CONFLICT:
            tk = a - E.A_EMBL
    lk, ck = 0, 0
    if ph == E.P_WAR or ph == E.P_DISCARD:
        lk, ck = _lead(s, st, tk)
    # the action's own numbers
    if cat == K_PICK or cat == K_PAY or cat == K_DISCARD_MORE:
        m = _card(env, a - E.A_CARD, E._my_clan(s, env, p), m, idx, val)
    elif cat == K_WRECK or cat == K_DRAFT or cat == K_TARGET:
        m = _card(env, s[E.BARR + a - E.A_SLOT], E._my_clan(s, env, p), m, idx, val)
    elif cat == K_DRAFT_ABILITY:
        c = a - E.A_CARD
        m = _card(env, c, E._my_clan(s, env, p), m, idx, val)
        draws = 0
        vict = 0
        free = 0
        for j in range(MAX_EFFECTS):
            op = cards[c, C_CODE + 2 * j]
            n = cards[c, C_CODE + 2 * j + 1]
            if op == OP_DRAW:
                draws += min(n, s[E.N_DECK + p])
            elif op == OP_VICTORY and s[E.N_IDECK] > 0:
                vict += n
            elif op == OP_DRAFT_FREE or op == OP_RECRUIT:
                free = 1
        if draws > 0:
            m = _put(idx, val, m, DRAWS, draws / 3.0)
        if vict > 0:
            m = _put(idx, val, m, VICTORY, float(vict))
        if free:
            m = _put(idx, val, m, FREE_DRAFT, 1.0)  # it takes a Barracks card without paying its cost
    elif cat == K_EMBLEM:
        e = a - E.A_EMBLEM
        clan = emblems[e, E_CLAN]
        v = 0.0
        if env[3][E.R_BLITZ]:  # the Clan deck it would take: its Valkyrie and Cogdrive cards' Strength
            for c in range(E.NC):
                if cards[c, C_CLAN] == clan and (cards[c, C_TYPE] == VALKYRIE or cards[c, C_TYPE] == COGDRIVE):
                    v += cards[c, C_STR] / 30.0
        else:  # the mover's own cards of that Clan (it knows its Deck's cards, not their order)
            for z in range(3):
                zb = (E.DECK, E.HAND, E.PILE)[z] + p * E.NC
                for j in range(s[(E.N_DECK, E.N_HAND, E.N_PILE)[z] + p]):
                    if cards[s[zb + j], C_CLAN] == clan:
                        v += 1.0 / 15.0
        m = _put(idx, val, m, EMBLEM_CLAN_CARDS, v)
        m = _put(idx, val, m, EMBLEM_BONUS, emblems[e, E_BONUS] / 2.0)
    elif cat == K_LOCATION:
        loc = a - E.A_LOC
        v = 0.0
        for j in range(locs.shape[1]):
            op = locs[loc, j, 0]
            if op == LOC_NO_EMBLEM:
                v += emblems[s[E.EMB + o], E_BONUS] - emblems[s[E.EMB + p], E_BONUS]
            elif op == LOC_STRENGTH:
                for h in range(s[E.N_HAND + p]):
                    c = s[E.HAND + p * E.NC + h]
                    if (locs[loc, j, 1] < 0 or locs[loc, j, 1] == cards[c, C_TYPE]) and \
                            (locs[loc, j, 2] < 0 or locs[loc, j, 2] == cards[c, C_CLAN]) and \
                            cards[c, C_STR] >= locs[loc, j, 3]:
                        v += locs[loc, j, 4]
        m = _put(idx, val, m, LOCATION_GAIN, v / 5.0)
    elif cat == K_PLAY:
        c = (a - E.A_PLAY) // 5
        strength = E.card_strength(s, env, c, p)
        t = cards[c, C_TYPE]
        m = _put(idx, val, m, CARD_STRENGTH, strength / 5.0)
        if t == COGDRIVE or t == ASSAULT:
            m = _put(idx, val, m, CARD_WAR_ABILITY, 1.0)
        m = _put(idx, val, m, LEAD_BEFORE, lk / 5.0)
        m = _put(idx, val, m, LEAD_AFTER, (lk + strength) / 5.0)
        if lk <= 0 < lk + strength:
            m = _put(idx, val, m, TAKES_LEAD, 1.0)
        if lk > 0:
            m = _put(idx, val, m, WAS_LEADING, 1.0)
        if ck:
            m = _put(idx, val, m, CONTESTED, 1.0)
        if env[3][E.R_BLITZ]:
            m = _stakes(s, st, tk, lk, strength, m, idx, val)
    elif cat == K_COGDRIVE or cat == K_ASSAULT:
        c = (a - E.A_ABIL) // 5
        m = _put(idx, val, m, CARD_STRENGTH, cards[c, C_STR] / 5.0)
        m = _war_ability(s, env, p, cards[c, C_CODE:], tk, lk, ck, st, m, idx, val)
    elif cat == K_EMBLEM_ABILITY:
        m = _war_ability(s, env, p, emblems[s[E.EMB + p], E_CODE:], tk, lk, ck, st, m, idx, val)
    elif cat == K_DISCARD_DRAW:
        c = a - E.A_WDISC
        m = _put(idx, val, m, CARD_STRENGTH, cards[c, C_STR] / 5.0)
        m = _put(idx, val, m, DRAWS, min(1, s[E.N_DECK + p]) / 3.0)
    return m


# the features split for scoring (``simkit.core.decision.Parts``; ``specialize_learned`` finds them on ``features``),
# set before the engine is imported: importing this module first runs the engine's ``specialize_learned``
features.learned_parts = Parts(category, block, numbers, N_CAT)

# the engine is bound last: it imports this module for its `learned` policy, and these functions read its layout
# (module attributes, resolved when numba compiles them)
from simkit.games.valkyrie_incident import engine as E  # noqa: E402
