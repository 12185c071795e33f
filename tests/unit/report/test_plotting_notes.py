"""plotting.note_in_empty puts a note where nothing is drawn."""
import numpy as np

from adaptive_repro.report import plotting


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
