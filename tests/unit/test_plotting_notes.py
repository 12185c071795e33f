"""plotting.note_in_empty puts a note where nothing is drawn; coincide_within measures how close two curves are."""
import numpy as np
import pytest

from adaptive_repro import plotting


def test_coincide_within_is_the_largest_relative_difference():
    assert plotting.coincide_within([1.0, 2.0, 4.0], [1.0, 2.2, 4.0]) == pytest.approx(0.2 / 2.2)
    assert np.isnan(plotting.coincide_within([np.nan], [1.0]))


def test_note_in_empty_avoids_the_drawn_curve():
    plt = plotting.pyplot()
    fig, ax = plt.subplots(figsize=(5, 4))
    x = np.linspace(0, 1, 50)
    ax.plot(x, 0.9 + 0.0 * x)  # a curve along the top: the note must not go there
    ax.set_ylim(0, 1)
    fig.canvas.draw()
    t = plotting.note_in_empty(ax, "a note")
    assert t.get_position()[1] < 0.6
    plt.close(fig)
