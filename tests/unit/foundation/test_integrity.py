"""Every intermediate is verified before use: a records file written with its digest sidecar reads back unchanged,
and every kind of corruption (truncated, a replicate's last rows removed, a value edited, garbage bytes, a chunk
swapped or copied onto another's path, a missing sidecar) is refused with one line naming the file, never used."""
import shutil

import numpy as np
import pandas as pd
import pytest

from adaptive_repro.foundation.io import IntegrityError, meta_path, read_verified_csv, write_verified_csv
from adaptive_repro.stats import concat_checked_chunks


def chunk(first: int, last: int) -> pd.DataFrame:
    rows = [("exp", r, "standard", k, ds, 0.5 + 0.01 * r + 0.001 * k, "abc123")
            for r in range(first, last + 1) for k in (0, 10) for ds in ("train", "holdout")]
    return pd.DataFrame(rows, columns=["experiment", "replicate", "mechanism", "k", "dataset", "accuracy",
                                       "spec_digest"])


@pytest.fixture
def chunks(tmp_path):
    paths = []
    for first, last in ((0, 2), (3, 5)):
        path = tmp_path / f"replicates-{first}-{last}.records.csv"
        write_verified_csv(chunk(first, last), path, {"experiment": "exp", "spec_digest": "abc123",
                                                      "replicates": [first, last]})
        paths.append(path)
    return paths


def expect(first, last):
    return {"experiment": "exp", "spec_digest": "abc123", "replicates": [first, last]}


def read(path, first, last):
    return read_verified_csv(path, expect=expect(first, last), dtype={"spec_digest": str})


def test_a_verified_file_reads_back_exactly(chunks):
    frame = read(chunks[0], 0, 2)
    pd.testing.assert_frame_equal(frame, chunk(0, 2))
    whole = concat_checked_chunks(chunks, [read(chunks[0], 0, 2), read(chunks[1], 3, 5)], {"exp": "abc123"},
                                  {"exp": 6})
    assert sorted(whole["replicate"].unique()) == list(range(6))


def _truncate(path):
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _drop_last_rows(path):
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(lines[:-2]))  # the last replicate loses its last rows


def _edit_value(path):
    path.write_text(path.read_text().replace("0.52", "0.62", 1))


def _garbage(path):
    path.write_bytes(np.random.default_rng(0).bytes(4000))


def _cut_mid_line(path):
    data = path.read_text()
    path.write_text(data[: data.rindex(",")])


@pytest.mark.parametrize("corrupt", [_truncate, _drop_last_rows, _edit_value, _garbage, _cut_mid_line])
def test_corrupted_content_is_refused_in_one_line(chunks, corrupt):
    corrupt(chunks[0])
    with pytest.raises(IntegrityError) as err:
        read(chunks[0], 0, 2)
    message = str(err.value)
    assert "\n" not in message and str(chunks[0]) in message and "does not match the digest" in message


def test_a_chunk_swapped_onto_another_path_is_refused(chunks):
    shutil.copy(chunks[1], chunks[0])  # the file and its sidecar, consistent with each other
    shutil.copy(meta_path(chunks[1]), meta_path(chunks[0]))
    with pytest.raises(IntegrityError, match=r"holds replicates = \[3, 5\] but this run needs \[0, 2\]"):
        read(chunks[0], 0, 2)


def test_a_chunk_copied_without_its_sidecar_is_refused(chunks):
    shutil.copy(chunks[1], chunks[0])
    with pytest.raises(IntegrityError, match="does not match the digest"):
        read(chunks[0], 0, 2)


@pytest.mark.parametrize("damage", ["missing", "garbage", "not a dict"])
def test_a_missing_or_broken_sidecar_is_refused(chunks, damage):
    meta = meta_path(chunks[0])
    if damage == "missing":
        meta.unlink()
    else:
        meta.write_text("\x00\x01 not json" if damage == "garbage" else "[1, 2]")
    with pytest.raises(IntegrityError, match="digest file .* is missing or unreadable"):
        read(chunks[0], 0, 2)


def test_replicate_check_survives_nan_and_names_the_gap(chunks):
    """A replicate missing from the plan (or a NaN replicate value) is named, not a crash of the check itself."""
    frames = [read(chunks[0], 0, 2)]
    with pytest.raises(ValueError, match=r"records of exp: replicates .* but the config asks for 0..5"):
        concat_checked_chunks(chunks[:1], frames, {"exp": "abc123"}, {"exp": 6})
    broken = frames[0].astype({"replicate": float})
    broken.loc[0, "replicate"] = np.nan
    with pytest.raises(ValueError, match="records of exp"):
        concat_checked_chunks(chunks[:1], [broken], {"exp": "abc123"}, {"exp": 3})


def test_a_write_error_without_a_file_name_names_the_target(tmp_path):
    """A writer that raises a full-disk OSError naming no file (matplotlib does): the error names the target."""
    import errno

    import pytest

    from adaptive_repro.foundation.io import atomic_path

    target = tmp_path / "figure.pdf"
    with pytest.raises(OSError) as raised, atomic_path(target):
        raise OSError(errno.ENOSPC, "No space left on device")
    assert raised.value.errno == errno.ENOSPC and raised.value.filename == str(target)
    assert not list(tmp_path.iterdir())  # nothing half-written is left
