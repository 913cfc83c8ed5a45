"""Plots: a heat-map leaves unplayed cells blank and can keep the table's row order; lines show a fair-share
reference, stay distinguishable when they overlap (at 0), and keep a long legend off the plot."""

from __future__ import annotations

import numpy as np

from simkit.core import plotting


def _keep(monkeypatch):
    figs = []
    real = plotting._save

    def keep(fig, path):
        fig.canvas.draw()
        r = fig.canvas.get_renderer()
        leg = fig.axes[0].get_legend()
        fig.extents = {"axes": fig.axes[0].get_window_extent(r), "fig": fig.bbox,
                       "legend": leg.get_window_extent(r) if leg else None}
        figs.append(fig)
        return real(fig, path)

    monkeypatch.setattr(plotting, "_save", keep)
    return figs


def test_heatmap_leaves_unplayed_cells_blank_in_the_tables_row_order(monkeypatch, tmp_path):
    figs = _keep(monkeypatch)
    values = np.array([[np.nan, 0.9], [0.2, np.nan]])
    plotting.heatmap(tmp_path / "h.png", values, ["a", "b"], ["a", "b"], title="t", xlabel="x", ylabel="y",
                     cbar_label="p", top_down=True)
    ax = figs[0].axes[0]
    img = ax.get_images()[0]
    assert img.origin == "upper"  # row 0 ("a", the table's first row) at the top
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == ["0.20", "0.90"]  # no "0.50" and no "nan" on the never-played mirror cells
    rgba = img.to_rgba(img.get_array())
    assert tuple(rgba[0, 0]) == (1.0, 1.0, 1.0, 1.0) or rgba[0, 0, 3] == 0  # blank (white), not a colour
    assert ax.get_yticklabels()[0].get_text() == "a"
    assert ax.get_title() == "t\n(blank: not played)"  # the blank cells say why
    plotting.heatmap(tmp_path / "full.png", np.array([[0.2, 0.9]]), ["a", "b"], ["a"], title="t", xlabel="x",
                     ylabel="y", cbar_label="p")
    assert figs[1].axes[0].get_title() == "t"  # nothing blank, nothing to explain


def test_a_saved_plot_shows_names_without_markdowns_code_marks(tmp_path):
    import matplotlib.pyplot as plt
    import matplotlib.text

    fig, ax = plt.subplots()
    ax.set_title("Skill ladder: one seat against three `economy`")
    ax.set_xlabel("`learned` − `random`")
    ax.bar(["`a`"], [1])
    plotting._save(fig, tmp_path / "p.png")
    shown = [t.get_text() for t in fig.findobj(matplotlib.text.Text) if t.get_text()]
    assert "Skill ladder: one seat against three economy" in shown and "learned − random" in shown
    assert not [t for t in shown if "`" in t]


def test_lines_draw_the_fair_share_and_keep_overlapping_lines_apart(monkeypatch, tmp_path):
    figs = _keep(monkeypatch)
    x = np.arange(1, 6)
    series = {"3 players": np.array([0.40, 0.33, 0.27, np.nan, np.nan]),
              "4 players": np.array([0.30, 0.25, 0.24, 0.21, np.nan]),
              "never (a)": np.zeros(5), "never (b)": np.zeros(5)}
    plotting.lines(tmp_path / "l.png", x, series, title="t", xlabel="turn order", ylabel="P(win)",
                   reference={"3 players": 1 / 3, "4 players": 1 / 4})
    ax = figs[0].axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "fair share (3 players): 0.333" in labels and "fair share (4 players): 0.250" in labels
    levels = sorted(round(ln.get_ydata()[0], 6) for ln in ax.get_lines() if ln.get_label().startswith("fair"))
    assert levels == [0.25, round(1 / 3, 6)]
    data = [ln for ln in ax.get_lines() if not ln.get_label().startswith("fair")]
    # the two lines at 0 differ in marker and line style (and the later one is hollow), so both show
    a, b = data[2], data[3]
    assert (a.get_marker(), a.get_linestyle()) != (b.get_marker(), b.get_linestyle())
    assert len({ln.get_marker() for ln in data}) == 4 and b.get_markerfacecolor() == "none"


def test_places_at_a_table_are_points_with_whiskers_not_a_line(monkeypatch, tmp_path):
    """``connect=False`` (the VÁLKA turn-order plot: places at a table are categories): no line joins the points
    and no band fills between them; each point has its interval as a whisker, and two table sizes sit side by side
    within a place, never on top of each other."""
    import matplotlib.collections

    figs = _keep(monkeypatch)
    series = {"2 players": np.array([0.637, 0.363]), "3 players": np.array([0.40, 0.33])}
    bands = {"2 players": (np.array([0.620, 0.346]), np.array([0.653, 0.380])),
             "3 players": (np.array([0.38, 0.31]), np.array([0.42, 0.35]))}
    plotting.lines(tmp_path / "p.png", [1, 2], series, title="t", xlabel="turn order", ylabel="P(win)",
                   bands=bands, reference={"2 players": 0.5}, connect=False)
    ax = figs[0].axes[0]
    points = [c.lines[0] for c in ax.containers if c.get_label() in series]
    assert len(points) == 2 and all(ln.get_linestyle() == "None" for ln in points)
    assert not [c for c in ax.collections if isinstance(c, matplotlib.collections.PolyCollection)]  # no band
    whiskers = [c for c in ax.collections if isinstance(c, matplotlib.collections.LineCollection)]
    spans = sorted(round(float(seg[1][1] - seg[0][1]), 6) for c in whiskers for seg in c.get_segments())
    assert spans == sorted(round(hi - lo, 6) for lo, hi in zip(*(np.concatenate(b) for b in zip(*bands.values()))))
    xs = [ln.get_xdata()[0] for ln in points]
    assert xs[0] < 1 < xs[1] and abs(xs[1] - xs[0]) < 0.5


def test_a_long_legend_goes_under_the_plot_not_over_it(monkeypatch, tmp_path):
    figs = _keep(monkeypatch)
    x = np.arange(1, 21)
    series = {f"hammer×2, axe×2 = sword×2, bow×2: troll {i}, dragon {i}": 1 - 0.9 ** (x + i) for i in range(8)}
    plotting.lines(tmp_path / "m.png", x, series, title="t", xlabel="turn", ylabel="P")
    ext = figs[0].extents
    ax, leg = ext["axes"], ext["legend"]
    assert leg.y1 <= ax.y0, "the legend overlaps the plot"
    assert ax.width > 0.6 * ext["fig"].width, "the plot lost its width to the legend"


def test_rare_shares_get_a_log_axis_above_a_linear_floor(monkeypatch, tmp_path):
    # Valhalla Solo's endings by level: one share near 0.87, others of 0.001 to 0.007 (invisible on 0..1)
    figs = _keep(monkeypatch)
    x = [1, 2, 3]
    series = {"won": [0.87, 0.869, 0.866], "lost the final attack": [0.001, 0.004, 0.007], "never": [0, 0, 0]}
    plotting.lines(tmp_path / "e.png", x, series, title="t", xlabel="level", ylabel="share of games",
                   xticklabels=["I", "II", "III"], small=0.001)
    ax = figs[0].axes[0]
    assert ax.get_yscale() == "symlog" and ax.get_ylabel() == "share of games (log scale above 0.001)"
    # 0.001 and 0.007 are far apart on the axis (a linear 0..1 axis puts them within 1% of its height)
    y0, y1 = ax.transData.transform([(1, 0.001), (1, 0.007)])[:, 1]
    lo, hi = ax.transData.transform([(1, 0.0), (1, 0.87)])[:, 1]
    assert (y1 - y0) > 0.2 * (hi - lo)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["I", "II", "III"]


def test_effect_bars_carry_their_intervals_and_the_tables_flags(monkeypatch, tmp_path):
    # a card flagged in the table is drawn in colour with its interval; one the data cannot tell from 0 (Retreat,
    # n = 250, ±0.054) is grey, not drawn like a flagged card
    figs = _keep(monkeypatch)
    plotting.bars(tmp_path / "c.png", ["Fireblast", "Retreat"], [0.08, 0.06], low=[0.05, 0.006], high=[0.11, 0.114],
                  flagged=[True, False], title="t", ylabel="effect on P(win)")
    ax = figs[0].axes[0]
    colours = [p.get_facecolor()[:3] for p in ax.patches]
    assert colours[0] != colours[1]
    caps = [ln for ln in ax.lines]  # error bar caps at low and high
    ys = sorted({round(float(y), 3) for ln in caps for y in ln.get_ydata()})
    assert {0.05, 0.11, 0.006, 0.114} <= set(ys)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "flagged (differs from 0 after Holm's correction)",
        "not flagged after Holm's correction (whiskers: each bar's own 95%, uncorrected)"]
    # long names on few bars are slanted, not run into each other (the Annihilation card plot)
    figs.clear()
    plotting.bars(tmp_path / "d.png", ["Storm Caller", "Skald of the Plains", "Gob Slinger", "Crawler", "Ghoul"],
                  [0.1] * 5, title="t", ylabel="e")
    assert figs[0].axes[0].get_xticklabels()[0].get_rotation() == 30
    figs.clear()
    plotting.bars(tmp_path / "e.png", ["a", "b"], [0.1, 0.2], title="t", ylabel="e")
    assert figs[0].axes[0].get_xticklabels()[0].get_rotation() == 0
