"""Plot helpers (matplotlib, no screen needed): heat-maps, bars with error bars, lines."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import matplotlib.text

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def heatmap(path: Path, values: np.ndarray, xlabels, ylabels, *, title: str, xlabel: str, ylabel: str,
            cbar_label: str, annotate: bool = True, fmt: str = "{:.2f}", top_down: bool = False) -> Path:
    """A heat-map of ``values[y, x]`` with optional cell annotations. A NaN cell (not played) is left blank,
    never painted as a value. ``top_down``: row 0 at the top, in the order of the table beside the plot (else
    at the bottom, as on a y axis of numbers)."""
    values = np.asarray(values, dtype=float)
    # never smaller than what the title, the axis labels and the colour bar need (a 2 × 1 grid is not clipped)
    fig, ax = plt.subplots(figsize=(max(5.0, 2.2 + 0.55 * len(xlabels)), max(3.4, 1.4 + 0.45 * len(ylabels))),
                           dpi=110)
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="white")
    im = ax.imshow(np.ma.masked_invalid(values), origin="upper" if top_down else "lower", cmap=cmap, vmin=0.0,
                   vmax=1.0, aspect="auto")
    ax.set_xticks(range(len(xlabels)), [str(x) for x in xlabels])
    ax.set_yticks(range(len(ylabels)), [str(y) for y in ylabels])
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    if annotate and values.size <= 400:
        for (i, j), v in np.ndenumerate(values):
            if np.isfinite(v):
                ax.text(j, i, fmt.format(v), ha="center", va="center", fontsize=7,
                        color="white" if v < 0.55 else "black")
    fig.colorbar(im, ax=ax, label=cbar_label)
    if np.isnan(values).any():  # a blank cell says why (an Emblem against itself, a cell not in the sweep)
        ax.set_title(f"{title}\n(blank: not played)")
    fig.tight_layout()
    return _save(fig, path)


MARKERS = ("o", "s", "^", "D", "v", "P", "X", "<", ">", "*")
STYLES = ("-", "--", "-.", ":")


def lines(path: Path, x, series: dict[str, np.ndarray], *, title: str, xlabel: str, ylabel: str,
          bands: dict[str, tuple[np.ndarray, np.ndarray]] | None = None, markers: bool = True,
          xticklabels=None, reference: dict[str, float] | None = None, reference_label: str = "fair share",
          legend_gap: float = 0.16, figsize: tuple[float, float] = (7, 4), small: float | None = None,
          reference_named: bool = True, connect: bool = True) -> Path:
    """One line per series, with an optional shaded interval band per series (``xticklabels`` for categories).

    Each series has its own marker shape and line style (hollow markers after the first), so lines that lie on
    top of each other (several at 0) stay distinguishable. ``reference`` maps a series to a level drawn as a
    thin dotted line in its colour (a fair share 1/n), named in the legend. ``legend_gap``: how far below the
    axes (a share of their height) a legend of long labels starts; a legend of many long labels needs a taller
    ``figsize`` (inches), or the axes shrink under it and the legend covers the x-axis label. ``small``: a y axis
    linear up to this value and logarithmic above it (matplotlib's symlog), so that shares of a few in a
    thousand stay apart from 0 beside one near 1. ``reference_named`` False: the reference's legend entry is
    ``reference_label`` alone (one level that is not any one series'). ``connect`` False: the x values are
    categories (places at a table), not a scale to read between, so each point stands alone with its band as a
    whisker, the series side by side within a category."""
    fig, ax = plt.subplots(figsize=figsize, dpi=110)
    k = len(series)
    for i, (name, y) in enumerate(series.items()):
        marker = MARKERS[i % len(MARKERS)] if markers or not connect else None
        face = None if i == 0 else "none"
        if not connect:
            xs = np.asarray(x, dtype=float) + (i - (k - 1) / 2) * min(0.12, 0.6 / max(k, 1))
            yerr = None
            if bands and name in bands:
                lo, hi = (np.asarray(b, dtype=float) for b in bands[name])
                yv = np.asarray(y, dtype=float)
                yerr = np.vstack([yv - lo, hi - yv])
            cont = ax.errorbar(xs, y, yerr=yerr, fmt=marker, ms=6, capsize=3, lw=1.4, label=name,
                               zorder=3 + k - i, markerfacecolor=face, markeredgewidth=1.3)
            line = cont.lines[0]
        else:
            line, = ax.plot(x, y, marker=marker, ms=5 if i == 0 else 6,
                            ls=STYLES[(i // len(MARKERS)) % len(STYLES)] if k > len(MARKERS) else
                            STYLES[i % len(STYLES)], lw=1.6, label=name, zorder=3 + k - i,
                            markerfacecolor=face, markeredgewidth=1.3)
            if bands and name in bands:
                lo, hi = bands[name]
                ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2)
        if reference and name in reference:
            ax.axhline(reference[name], color=line.get_color(), ls=(0, (1, 2)), lw=1.2, zorder=2,
                       label=f"{reference_label} ({name}): {reference[name]:.3f}" if reference_named
                       else reference_label)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel if small is None else f"{ylabel} (log scale above {small:g})")
    if small is not None:
        from matplotlib.ticker import FuncFormatter

        ax.set_yscale("symlog", linthresh=small, linscale=0.5)
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.grid(alpha=0.3)
    if xticklabels is not None:
        ax.set_xticks(x, [str(t) for t in xticklabels])
    elif all(float(v).is_integer() for v in np.asarray(x, dtype=float)):
        from matplotlib.ticker import MaxNLocator

        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    handles, labels = ax.get_legend_handles_labels()
    if len(labels) > 1:
        # never over the lines: beside the plot, or under it when the labels are long (so that the plot keeps
        # its width)
        if max(map(len, labels)) > 30:
            ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -legend_gap), borderaxespad=0.0,
                      frameon=False, ncols=2 if len(labels) > 4 and max(map(len, labels)) <= 45 else 1)
        else:
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, frameon=False)
    fig.tight_layout()
    return _save(fig, path)


FLAGGED, UNFLAGGED = "#4c72b0", "#b8c2cc"


def bars(path: Path, labels, values, *, title: str, ylabel: str, low=None, high=None, xlabel: str | None = None,
         flagged=None, flag_label: str = "flagged (differs from 0 after Holm's correction)",
         plain_label: str = "not flagged after Holm's correction (whiskers: each bar's own 95%, uncorrected)") -> Path:
    """Bars with optional interval error bars. ``flagged`` (one bool per bar): the table's verdict, drawn in the
    plot too: flagged bars in colour, the others grey, named in a legend."""
    fig, ax = plt.subplots(figsize=(max(5, 0.5 * len(labels) + 2), 4), dpi=110)
    values = np.asarray(values, dtype=float)
    yerr = None
    if low is not None and high is not None:
        yerr = np.vstack([values - np.asarray(low, float), np.asarray(high, float) - values])
    colors = FLAGGED if flagged is None else [FLAGGED if f else UNFLAGGED for f in flagged]
    ax.bar(range(len(labels)), values, yerr=yerr, capsize=3, color=colors)
    # slanted labels when there are many, or when long ones would run into each other (about 9 characters an inch)
    width = max(5, 0.5 * len(labels) + 2)
    slant = len(labels) > 8 or sum(len(str(x)) + 2 for x in labels) > 9 * width * 0.8
    ax.set_xticks(range(len(labels)), [str(x) for x in labels], rotation=30 if slant else 0,
                  ha="right" if slant else "center")
    if flagged is not None:
        from matplotlib.patches import Patch

        ax.legend(handles=[Patch(color=FLAGGED, label=flag_label), Patch(color=UNFLAGGED, label=plain_label)],
                  fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.28 if slant else -0.12),
                  frameon=False, ncols=1)
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    if xlabel:
        ax.set_xlabel(xlabel)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    return _save(fig, path)


def grouped_bars(path: Path, groups, series: dict[str, tuple], title: str, ylabel: str) -> Path:
    """Grouped bars: one group per entry of ``groups``, one bar colour per series.

    ``series`` maps a name to ``(values, low, high)`` (one entry per group);
    ``low``/``high`` may be None for bars without error bars.
    """
    groups = [str(g) for g in groups]
    k = max(1, len(series))
    width = 0.8 / k
    fig, ax = plt.subplots(figsize=(min(16.0, max(6.0, len(groups) * (0.18 * k + 0.4) + 1.5)), 4.5), dpi=110)
    x = np.arange(len(groups), dtype=float)
    for i, (name, (values, low, high)) in enumerate(series.items()):
        values = np.asarray(values, dtype=float)
        yerr = None
        if low is not None and high is not None:
            yerr = np.vstack([values - np.asarray(low, float), np.asarray(high, float) - values])
        ax.bar(x + (i - (k - 1) / 2) * width, values, width, yerr=yerr, capsize=2, label=str(name),
               error_kw={"elinewidth": 0.8})
    tilt = len(groups) > 10 or max((len(g) for g in groups), default=0) * len(groups) > 110
    ax.set_xticks(x, groups, rotation=30 if tilt else 0, ha="right" if tilt else "center")
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    if len(series) > 1:
        ax.legend(fontsize=8, ncols=min(len(series), 4), loc="upper center",
                  bbox_to_anchor=(0.5, -0.2 if tilt else -0.1), frameon=False)
    fig.tight_layout()
    return _save(fig, path)


def _save(fig, path: Path) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Markdown's code marks (`learned`) are for the page, not the picture: a plot shows the bare name
    fig.canvas.draw()  # (tick labels exist once drawn)
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            labels = [t.get_text() for t in axis.get_ticklabels()]
            if any("`" in label for label in labels):
                axis.set_ticks(axis.get_ticklocs(), [label.replace("`", "") for label in labels])
    for text in fig.findobj(matplotlib.text.Text):
        if "`" in text.get_text():
            text.set_text(text.get_text().replace("`", ""))
    # "tight": the saved image holds every title, label and legend, however small the axes
    fig.savefig(path, bbox_inches="tight", pad_inches=0.1)
    plt.close(fig)
    return path
