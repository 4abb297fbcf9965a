"""The interactive stride page in a real browser: headless Chromium through Selenium.

The page is loaded from a file (no server, and the browser's network is off): a stride is
edited, an element hovered, and the highlighted storage cell must be the one the library
computes. Skips, with the reason, where Selenium, Chromium or its driver is missing (CI has
none). Here: ``apt-get install chromium chromium-driver`` and ``pip install selenium``; the
browser and driver are found on PATH, or named by ``TENSORCORE_CHROMIUM`` and
``TENSORCORE_CHROMEDRIVER``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tensorcore as tc
from tensorcore.viz.__main__ import main as cli

webdriver = pytest.importorskip(
    "selenium.webdriver", reason="selenium is not installed (pip install selenium)"
)
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

_BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1400,1000",
)


def _find(env: str, names: tuple[str, ...]) -> str | None:
    given = os.environ.get(env)
    if given:
        return given if Path(given).exists() else None
    return next((p for p in map(shutil.which, names) if p), None)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    chromium = _find("TENSORCORE_CHROMIUM", _BROWSERS)
    driver_path = _find("TENSORCORE_CHROMEDRIVER", ("chromedriver",))
    if chromium is None:
        pytest.skip("no Chromium found (apt-get install chromium, or set TENSORCORE_CHROMIUM)")
    if driver_path is None:
        pytest.skip(
            "no chromedriver found (apt-get install chromium-driver, or set "
            "TENSORCORE_CHROMEDRIVER)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in _FLAGS:
        options.add_argument(flag)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SE_OFFLINE", "true")  # Selenium Manager must not look for downloads
        try:
            driver = webdriver.Chrome(
                service=webdriver.ChromeService(executable_path=driver_path), options=options
            )
        except WebDriverException as exc:
            pytest.skip(f"Chromium did not start: {exc.msg or exc}")
    try:
        yield driver
    finally:
        driver.quit()


def _open(browser: Any, path: Path) -> None:
    browser.get(path.as_uri())
    assert browser.find_elements(By.CSS_SELECTOR, "#drawing .el"), "the page drew nothing"


def _links(browser: Any) -> dict[tuple[int, tuple[int, ...]], tuple[int, ...]]:
    cells = browser.execute_script(
        "return [...document.querySelectorAll('#drawing .el')].map("
        "(e) => [e.dataset.view, e.dataset.index, e.dataset.storage]);"
    )
    return {
        (int(v), tuple(map(int, idx.split()))): tuple(map(int, st.split())) for v, idx, st in cells
    }


def _highlighted(browser: Any) -> list[str]:
    return [
        e.get_attribute("data-index")
        for e in browser.find_elements(By.CSS_SELECTOR, "#drawing .scell.hl")
    ]


def _set(browser: Any, selector: str, text: str) -> None:
    field = browser.find_element(By.CSS_SELECTOR, selector)
    field.clear()
    field.send_keys(text)


def _hover(browser: Any, selector: str) -> Any:
    el = browser.find_element(By.CSS_SELECTOR, selector)
    ActionChains(browser).move_to_element(el).perform()
    return el


def test_edit_a_stride_and_hover_an_element(browser: Any, tmp_path: Path) -> None:
    page = tmp_path / "strides.html"
    # As the issue writes it: the page the command line makes.
    assert cli(["strides", "--size", "3", "4", "--stride", "1", "3", "--offset", "0",
                "-o", str(page)]) == 0  # fmt: skip
    _open(browser, page)
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0, (
        "the page fetched something"
    )
    assert _links(browser)[(0, (1, 2))] == (7,)  # 1 * 1 + 2 * 3

    _set(browser, 'fieldset[data-view="0"] input[name="stride"]', "4 1")
    assert browser.find_element(By.ID, "error").text == ""
    el = _hover(browser, '#drawing .el[data-view="0"][data-index="1 2"]')
    assert el.get_attribute("data-storage") == "6"  # 1 * 4 + 2 * 1
    assert "hl" in el.get_attribute("class").split()
    assert _highlighted(browser) == ["6"]
    assert browser.find_element(By.ID, "readout").text == "t[1, 2] reads storage [6]"
    # A line from the element to its cell.
    assert len(browser.find_elements(By.CSS_SELECTOR, "#overlay line")) == 1

    _set(browser, 'fieldset[data-view="0"] input[name="offset"]', "3")
    _set(browser, "#storage-size", "20")
    _hover(browser, '#drawing .el[data-view="0"][data-index="2 3"]')
    assert _highlighted(browser) == ["14"]
    gaps = browser.find_elements(By.CSS_SELECTOR, "#drawing .scell.gap")
    assert [g.get_attribute("data-index") for g in gaps] == ["0", "1", "2", "15", "16", "17",
                                                            "18", "19"]  # fmt: skip


def test_the_page_and_the_library_agree(browser: Any, tmp_path: Path) -> None:
    for size, stride, offset in [
        ((3, 4), (1, 3), 0),
        ((2, 3, 2), (0, 4, 7), 2),
        ((4,), (2,), 5),
        ((), (), 3),
        ((2, 2), (1, 1), 0),
    ]:
        p = tc.viz.strides(size=size, stride=stride, offset=offset)
        page = p.save(tmp_path / "p.html")
        _open(browser, page)
        v = p.views[0]
        assert _links(browser) == {(0, idx): tuple(v.cells(idx)) for idx in v.indices()}
        scells = browser.find_elements(By.CSS_SELECTOR, "#drawing .scell")
        assert len(scells) == p.storage_size
        assert [c.get_attribute("data-index") for c in scells if "gap" in c.get_attribute(
            "class").split()] == [str(c) for c in p.gaps()]  # fmt: skip


def test_hover_a_storage_cell_read_twice(browser: Any, tmp_path: Path) -> None:
    b = tc.arange(3.0)
    page = tc.viz.strides({"b": b, "e": b.expand(2, 3)}).save(tmp_path / "e.html")
    _open(browser, page)
    cell = _hover(browser, '#drawing .scell[data-index="1"]')
    assert "repeated" in cell.get_attribute("class").split()
    lit = browser.find_elements(By.CSS_SELECTOR, "#drawing .el.hl")
    assert sorted((e.get_attribute("data-view"), e.get_attribute("data-index")) for e in lit) == [
        ("0", "1"),
        ("1", "0 1"),
        ("1", "1 1"),
    ]
    assert browser.find_element(By.ID, "readout").text == (
        "storage[1] is read by b[1], e[0, 1], e[1, 1]"
    )


def test_complex_elements_cover_two_cells(browser: Any, tmp_path: Path) -> None:
    z = tc.tensor([1 + 2j, 3 + 4j, 5 + 6j])
    page = tc.viz.strides({"z": z, "z.imag": z.imag}).save(tmp_path / "z.html")
    _open(browser, page)
    _hover(browser, '#drawing .el[data-view="0"][data-index="1"]')
    assert _highlighted(browser) == ["2", "3"]
    _hover(browser, '#drawing .el[data-view="1"][data-index="1"]')
    assert _highlighted(browser) == ["3"]


def test_bad_input_shows_the_reason(browser: Any, tmp_path: Path) -> None:
    page = tc.viz.strides(size=(3, 4), stride=(4, 1)).save(tmp_path / "bad.html")
    _open(browser, page)
    stride = 'fieldset[data-view="0"] input[name="stride"]'
    for text, expected in [
        ("4", "has 2 dims but stride (4,) has 1"),
        ("4 -1", "strides must be non-negative"),
        ("4 x", 'strides must be whole numbers, got "x"'),
    ]:
        _set(browser, stride, text)
        assert expected in browser.find_element(By.ID, "error").text
        assert "invalid" in browser.find_element(By.ID, "picture").get_attribute("class")
    _set(browser, stride, "4 1")
    _set(browser, "#storage-size", "5")
    # The same words as the library's ValueError.
    with pytest.raises(ValueError) as exc:
        tc.viz.strides(size=(3, 4), stride=(4, 1), storage_size=5)
    error = browser.find_element(By.ID, "error").get_attribute("textContent")
    assert error == str(exc.value)
    _set(browser, "#storage-size", "")
    assert browser.find_element(By.ID, "error").text == ""
    assert "invalid" not in browser.find_element(By.ID, "picture").get_attribute("class")
