"""`make screenshots` stays wired up: the Makefile target, the script's pages, the README's images.

Cheap: nothing here starts a server or a browser (tools/screenshots.py does that when run).
"""

from __future__ import annotations

import importlib.util
import re
import sys

from server import ROOT, navigation


def _script():
    spec = importlib.util.spec_from_file_location("screenshots", ROOT / "tools" / "screenshots.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def test_makefile_has_the_screenshots_target():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    rule = re.search(r"^screenshots:([^\n]*)\n((?:\t[^\n]*\n)+)", makefile, re.MULTILINE)
    assert rule, "no `screenshots:` rule in the Makefile"
    prerequisites, recipe = rule.groups()
    assert "$(DEV_STAMP)" in prerequisites and "browser-deps" in prerequisites, prerequisites
    assert "tools/screenshots.py" in recipe, recipe
    assert re.search(r"^\.PHONY:.*\bscreenshots\b", makefile, re.MULTILINE)


def test_shots_point_at_registered_pages():
    shots = _script().SHOTS
    registered = {url for pages in navigation().values() for _file, _title, _icon, url in pages}
    assert [s.name for s in shots] == ["home", "head_view", "step_by_step", "decoder", "numbers_crossing"]
    for shot in shots:
        assert shot.url_path in registered, f"{shot.name}: {shot.url_path!r} is not a page of app.py"


def test_readme_shows_the_screenshots():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make screenshots" in readme
    for shot in _script().SHOTS:
        link = f"docs/screenshots/{shot.name}.png"
        assert f"]({link})" in readme, f"README does not show {link}"
        path = ROOT / link
        assert path.is_file(), f"{link} missing: run `make screenshots`"
        assert path.stat().st_size < 400_000, f"{link} is {path.stat().st_size} bytes"
