#!/usr/bin/env python3
"""Drives the browser dashboard (deploy/dashboard) in one headless Chromium session, for the dashboard tests.

It starts Chromium through Debian's chromedriver, prints "PORT <n>" (chromedriver's port) once the browser is
up, then reads one JSON command per line on standard input and answers each with one JSON line on standard
output; an answer with "error" says what the page did not show in time.

  {"op": "open", "url": "http://127.0.0.1:9001/", "nodes": 100}
        loads the page (the dashboard, or dashboard_floor.html) and waits until its fleet table lists `nodes`
        nodes with their status; answers
        "firstRenderMs" (from the start of navigation to the moment the last of them was listed, recorded
        in the page by a MutationObserver) and the listed "prefixes"
  {"op": "openNode", "prefix": "medianode/car1"}
        clicks that node's row in the fleet view and waits for the node view
  {"op": "nowPlaying", "title": "Tone 440", "state": "playing"}
        waits until the node view shows that title and state, and artwork that has loaded; answers "title",
        "subtitle", "state", "artworkWidth", "artworkHeight", "elapsed" (the position bar's text)
  {"op": "click", "selector": "#btn-playpause", "text": "Pause"}
        waits until the element shows `text` (when given) and is enabled, then clicks it
  {"op": "browse", "titles": ["Library", "Albums"]}
        from the top of the content tree, opens the containers with these titles in turn (paging on with
        "More" when a title is not on the page shown); answers the "titles" listed at the end
  {"op": "rows"}   the list shown: each row's "title", "action" ("open", "play" or null) and "kind" (its label)
  {"op": "play", "title": "Tone 440"}   clicks the playable item with that title in the list shown
  {"op": "text", "selector": "#message"}   the element's text (a field's: its value)
  {"op": "type", "selector": "#announce-input", "text": "Hello"}
        empties the field and types the text into it, key by key, as a person does
  {"op": "enabled", "selector": "#announce-send"}   whether the element is enabled ("enabled"), and its "title"
  {"op": "screenshot", "path": "/tmp/x.png"}
  {"op": "console"}   the page's console errors so far
  {"op": "quit"}
"""
import json
import sys
import time

try:
    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError as missing:
    # The first line is what the test reports when it expected "PORT <n>".
    print("cannot drive Chromium: %s (apt-get install chromium chromium-driver python3-selenium)" % missing, flush=True)
    sys.exit(1)

TIMEOUT = 20

# Installed before the page's own scripts: records when the fleet table first lists the expected number of
# nodes with their status, without the test polling the page (a poll would add its own delay).
FLEET_PROBE = """
window.__fleetListedAt = null;
window.__fleetExpected = %d;
new MutationObserver(function (changes, observer) {
  var rows = document.querySelectorAll('#fleet tbody tr[data-status]');
  if (rows.length >= window.__fleetExpected && window.__fleetListedAt === null) {
    window.__fleetListedAt = performance.now();
    observer.disconnect();
  }
}).observe(document, {subtree: true, childList: true, attributes: true});
"""


def start_browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1280,1000", "--hide-scrollbars"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(driver, what, condition, timeout=TIMEOUT):
    def guarded(d):
        try:
            return condition(d)
        except StaleElementReferenceException:
            return False
    try:
        return WebDriverWait(driver, timeout, poll_frequency=0.05).until(guarded)
    except TimeoutException:
        raise Failure("timed out after %d s waiting for %s" % (timeout, what))


class Failure(Exception):
    pass


# The fleet probe installed for each expected node count, by its DevTools identifier.
probes = {}


def shown_titles(driver):
    """The titles in the content list; the list may be redrawn while it is read, so it is read again then."""
    for _ in range(10):
        try:
            return [e.find_element(By.CSS_SELECTOR, ".title").text.split(" — ")[0]
                    for e in driver.find_elements(By.CSS_SELECTOR, "#tree li")]
        except StaleElementReferenceException:
            time.sleep(0.05)
    return []


def tree_item(driver, title, action):
    for element in driver.find_elements(By.CSS_SELECTOR, "#tree li[data-action='%s']" % action):
        if element.find_element(By.CSS_SELECTOR, ".title").text.split(" — ")[0] == title:
            return element
    return None


def click_in_tree(driver, title, action):
    """Clicks the row for `title`, paging on with "More" while the list has more to show. A list redrawn
    between finding the row and clicking it (a tree node's retained update) is searched again."""
    def found_or_more(d):
        element = tree_item(d, title, action)
        if element:
            element.click()
            return True
        more = d.find_element(By.ID, "tree-more")
        if more.is_displayed():
            count = len(d.find_elements(By.CSS_SELECTOR, "#tree li"))
            more.click()
            wait(d, "the next page of the list", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#tree li")) > count)
        return False
    return wait(driver, "%r in the content list (shown: %s)" % (title, shown_titles(driver)), found_or_more)


def handle(driver, command):
    op = command["op"]
    if op == "open":
        if probes.get(command["nodes"]) is None:
            for identifier in probes.values():
                driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": identifier})
            probes.clear()
            probes[command["nodes"]] = driver.execute_cdp_cmd(
                "Page.addScriptToEvaluateOnNewDocument", {"source": FLEET_PROBE % command["nodes"]})["identifier"]
        driver.get(command["url"])
        listed = wait(driver, "%d nodes in the fleet view" % command["nodes"],
                      lambda d: d.execute_script("return window.__fleetListedAt"))
        prefixes = driver.execute_script(
            "return [...document.querySelectorAll('#fleet tbody tr')].map(r => r.dataset.prefix)")
        return {"firstRenderMs": listed, "prefixes": prefixes}
    if op == "openNode":
        row = wait(driver, "the row of %s" % command["prefix"], lambda d: d.find_element(
            By.CSS_SELECTOR, "#fleet tbody tr[data-prefix='%s']" % command["prefix"]))
        row.click()
        wait(driver, "the node view", lambda d: d.find_element(By.ID, "node-view").is_displayed())
        return {}
    if op == "nowPlaying":
        def showing(d):
            title = d.find_element(By.ID, "np-title").text
            state = d.find_element(By.ID, "np-state").text
            loaded = d.execute_script(
                "var i = document.getElementById('np-artwork'); return i.complete && i.naturalWidth > 0")
            return title == command["title"] and state == command["state"] and loaded
        wait(driver, "now playing %r (%s) with its artwork; shown: %r (%s)" % (
            command["title"], command["state"], driver.find_element(By.ID, "np-title").text,
            driver.find_element(By.ID, "np-state").text), showing)
        size = driver.execute_script(
            "var i = document.getElementById('np-artwork'); return [i.naturalWidth, i.naturalHeight]")
        return {"title": driver.find_element(By.ID, "np-title").text,
                "subtitle": driver.find_element(By.ID, "np-subtitle").text,
                "state": driver.find_element(By.ID, "np-state").text,
                "artworkWidth": size[0], "artworkHeight": size[1],
                "elapsed": driver.find_element(By.ID, "np-elapsed").text}
    if op == "click":
        def ready(d):
            element = d.find_element(By.CSS_SELECTOR, command["selector"])
            if "text" in command and element.text != command["text"]:
                return False
            return element if element.is_enabled() else False
        wait(driver, "%s showing %r" % (command["selector"], command.get("text")), ready).click()
        return {}
    if op == "browse":
        wait(driver, "the top of the content tree", lambda d: d.find_element(By.CSS_SELECTOR, "#crumbs a").click() or True)
        # The click empties the list and the page fills it again once the broker's copy is read.
        wait(driver, "the list at the top of the content tree", lambda d: d.find_elements(By.CSS_SELECTOR, "#tree li"))
        for title in command["titles"]:
            click_in_tree(driver, title, "open")
            wait(driver, "the list under %r" % title,
                 lambda d: d.find_element(By.CSS_SELECTOR, "#crumbs").text.endswith(title)
                 and d.find_elements(By.CSS_SELECTOR, "#tree li"))
        return {"titles": shown_titles(driver)}
    if op == "rows":
        return {"rows": [{"title": e.find_element(By.CSS_SELECTOR, ".title").text.split(" — ")[0],
                          "action": e.get_attribute("data-action"),
                          "kind": e.find_element(By.CSS_SELECTOR, ".kind").text}
                         for e in driver.find_elements(By.CSS_SELECTOR, "#tree li")]}
    if op == "play":
        click_in_tree(driver, command["title"], "play")
        return {}
    if op == "text":
        element = driver.find_element(By.CSS_SELECTOR, command["selector"])
        if element.tag_name in ("input", "textarea"):
            return {"text": element.get_attribute("value") or ""}
        return {"text": element.text}
    if op == "type":
        field = wait(driver, "%s to type into" % command["selector"],
                     lambda d: d.find_element(By.CSS_SELECTOR, command["selector"]))
        field.clear()
        field.send_keys(command["text"])
        return {}
    if op == "choose":
        Select(driver.find_element(By.CSS_SELECTOR, command["selector"])).select_by_value(command["value"])
        return {}
    if op == "slide":
        # A range input takes no typing: set its value as a drag would, and say so as a drag does.
        driver.execute_script(
            "var e = document.querySelector(arguments[0]); e.value = arguments[1];"
            " e.dispatchEvent(new Event('input', {bubbles: true}));", command["selector"], command["value"])
        return {}
    if op == "enabled":
        element = driver.find_element(By.CSS_SELECTOR, command["selector"])
        return {"enabled": element.is_enabled(), "title": element.get_attribute("title") or ""}
    if op == "screenshot":
        driver.save_screenshot(command["path"])
        return {}
    if op == "console":
        return {"errors": [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]}
    raise Failure("unknown op %r" % op)


def main():
    try:
        driver = start_browser()
    except Exception as error:
        print("cannot start Chromium: %s" % str(error).strip().replace("\n", " "), flush=True)
        sys.exit(1)
    try:
        print("PORT %d" % driver.service.port, flush=True)
        for line in sys.stdin:
            if not line.strip():
                continue
            command = json.loads(line)
            if command.get("op") == "quit":
                print(json.dumps({"ok": True}), flush=True)
                break
            started = time.monotonic()
            try:
                reply = handle(driver, command)
                reply["ok"] = True
            except Failure as failure:
                reply = {"ok": False, "error": str(failure)}
            except Exception as error:  # The test shows what went wrong rather than a dead pipe.
                reply = {"ok": False, "error": "%s: %s" % (type(error).__name__, error)}
            reply["seconds"] = round(time.monotonic() - started, 3)
            print(json.dumps(reply), flush=True)
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
