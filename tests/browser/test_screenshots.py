"""The README's pictures: the run overview and the agent inspector of a real offline run, as a user
sees them. Each run of this test takes them again and checks they are real pictures of the pages;
to refresh the committed ones:

    VOYAGE_SCREENSHOTS=docs/img .venv/bin/python -m pytest tests/browser/test_screenshots.py
"""
from __future__ import annotations

import os
import shutil
import struct
from pathlib import Path

VIEWPORT = {"width": 1100, "height": 720}


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG"
    return struct.unpack(">II", data[16:24])


def test_the_readme_pictures_are_taken_from_a_real_run(staff_page, site, small_run, tmp_path):
    page = staff_page
    page.set_viewport_size(VIEWPORT)
    agent, name = site.query("SELECT p.key, p.display_name FROM agent_state a JOIN world_persona p "
                             "ON p.id = a.persona_id WHERE a.run_id = %s ORDER BY a.rung DESC, p.key LIMIT 1",
                             (small_run,))[0]
    shots = {"overview.png": f"/runs/{small_run}/", "inspector.png": f"/runs/{small_run}/agents/{agent}/"}
    for filename, path in shots.items():
        page.goto(path)
        page.wait_for_load_state("networkidle")
        page.screenshot(path=tmp_path / filename)
        assert png_size(tmp_path / filename) == (VIEWPORT["width"], VIEWPORT["height"])
        assert 10_000 < (tmp_path / filename).stat().st_size < 400_000
    page.goto(shots["inspector.png"])
    assert name in page.locator("h1, h2").first.inner_text() or page.get_by_text(name).count() > 0
    if target := os.environ.get("VOYAGE_SCREENSHOTS"):
        Path(target).mkdir(parents=True, exist_ok=True)
        for filename in shots:
            shutil.copy(tmp_path / filename, Path(target) / filename)
