import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

if "PYTEST_XDIST_WORKER" in os.environ:
    # pytest-xdist hands its workers the terminal's COLUMNS; tables printed by the CLI would then wrap to that
    # width, where a test run on one process prints them whole (standard output is not a terminal)
    os.environ.pop("COLUMNS", None)
SCENARIOS = ROOT / "scenarios"


# The tests `make test-fast` leaves out (marked `slow`): every test that took 4 s or more in a full run, each with
# its time. `make test` runs them all.
SLOW = (  # measured with a warm kernel cache on 2 cores (2026-12-04), summed over a test's parameters
    "tests/test_card_file_one_problem.py::test_one_wrong_field_is_one_line",  # 40 s (beside a make report)
    "tests/games/test_lonequest_yardstick.py::test_stopping_at_each_reveal_plays_the_simulators_game",  # 17 s
    "tests/games/test_valeria_engine.py::test_whole_game_rounds_and_seat_zero_reward_match_an_independent_chain",  # 11 s
    "tests/games/test_valhalla_battle.py::test_engine_played_by_the_optimal_table_and_by_builder_matches_the_exact_values",  # 6 s
    "tests/games/test_valhalla_multi_report.py::test_bundled_quick_report_headline_matches_rows",  # 9 s
    "tests/games/test_valhalla_solo_engine.py::test_heuristics_do_not_lose_to_never_doing_x",  # 34 s
    "tests/games/test_valhalla_solo_engine.py::test_levels_get_harder_on_common_random_numbers",  # 6 s
    "tests/games/test_valhalla_solo_engine.py::test_monster_attack_frequency_matches_the_exact_odds",  # 7 s
    "tests/games/test_valhalla_yardstick.py::test_every_battle_loses_nothing_under_the_optimum_and_never_gains",  # 7 s
    "tests/games/test_valhalla_yardstick.py::test_same_seed_same_battles",  # 5 s
    "tests/games/test_valka_multiplayer.py::test_lone_fighter_chance_duel_matches_the_exact_odds",  # 7 s
    "tests/games/test_valka_multiplayer.py::test_random_games_keep_every_invariant",  # 10 s
    "tests/games/test_valkyrie_incident_features.py::test_a_war_play_in_a_scripted_position",  # 4 s
    "tests/games/test_valkyrie_incident_field.py::test_no_one_parameter_variant_beats_a_reported_preset",  # 48 s
    "tests/games/test_valkyrie_incident_field.py::test_the_untuned_presets_lose_to_a_one_parameter_variant",  # 12 s
    "tests/games/test_valkyrie_incident_play.py::test_heuristic_does_not_lose_to_never_doing_x",  # 43 s
    "tests/games/test_valkyrie_incident_report.py::test_bundled_page_answers_whether_the_emblem_ranking_depends_on_the_policy",  # 8 s
    "tests/stats/test_coverage.py::test_ladder_below_best_family_wise_rate",  # 36 s
    "tests/strategy/test_learned.py::test_scores_by_kind_equal_the_plain_scorer_to_the_bit",  # 6 s
    "tests/test_balance.py::test_max_edits_binds_and_the_search_reproduces_from_its_seed",  # 15 s
    "tests/test_balance_workflow.py::test_compare_and_check_work_on_every_registered_mode",  # 20 s
    "tests/test_check_baselines.py::test_check_fails_on_old_gob_health_3_to_4",  # 11 s
    "tests/test_check_baselines.py::test_check_passes_unchanged_with_other_jobs",  # 10 s
    "tests/test_crash_safety.py::test_a_second_run_on_the_same_out_is_refused",  # 7 s
    "tests/test_crash_safety.py::test_a_signal_keeps_blocks_counts_them_cleans_up_and_resumes",  # 42 s
    "tests/test_crash_safety.py::test_full_tmpfs_stops_cleanly_and_resumes_when_space_is_freed",  # 4 s
    "tests/test_crash_safety.py::test_two_resumes_started_together_one_runs_and_the_lock_dies_with_kill_9",  # 11 s
    "tests/test_dask_backend.py::test_unreachable_scheduler_is_a_clear_input_error",  # 5 s
    "tests/test_dask_backend.py::test_unreachable_scheduler_writes_nothing",  # 5 s
    "tests/test_html_reports.py::test_every_committed_page_at_1400px_has_no_cut_table",  # 9 s
    "tests/test_html_reports.py::test_report_only_one_game_keeps_the_others_in_the_index",  # 16 s
    "tests/test_readme_examples.py::test_readme_example_prints_what_the_readme_shows",  # 51 s
    "tests/test_resume.py::test_ctrl_c_keeps_blocks_says_so_and_resumes",  # 7 s
    "tests/test_resume.py::test_kill_9_stops_the_workers_and_resume_is_byte_identical",  # 16 s
    "tests/test_resume.py::test_resume_redoes_a_damaged_block_and_refuses_a_changed_scenario",  # 6 s
)


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.split("[")[0] in SLOW:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def chance_strike_scenario():
    return SCENARIOS / "valka" / "chance_strike.toml"


@pytest.fixture(autouse=True)
def _quiet_numba_threads(monkeypatch):
    monkeypatch.setenv("NUMBA_NUM_THREADS", os.environ.get("NUMBA_NUM_THREADS", "1"))
