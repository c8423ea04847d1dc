#!/usr/bin/env python3
"""Drives the dashboard in Debian's headless Chromium (selenium + chromedriver), as a user would.

    dashboard-check.py BASE_URL TOKEN JOBS_FILE SCREENSHOT

0. opens BASE_URL/ and enters the token, then writes JOBS_FILE.ready and waits for the
   test to write "RUNNING_JOB QUEUED_JOB" to JOBS_FILE (so the jobs start once the
   browser is up, however slowly it started);
1. shows the jobs again and watches RUNNING_JOB's progress bar until its
   width has changed at least twice (the bar moves with the job's events);
2. opens QUEUED_JOB's page, checks its shard map has one cell per video shard with a
   hover text naming the shard, presses "Priority +1" and waits for priority 1, then
   "Cancel job" and waits for "cancelled";
3. opens the workers page and waits for a worker row;
4. on RUNNING_JOB's page while it renders: the live preview's <video> plays (its
   currentTime advances) and the job is still rendering; the shard map has one cell per
   video shard, each in the state the API reports; a screenshot goes to SCREENSHOT;
   the workers page draws sparklines of busy slots, CPU and memory (SCREENSHOT-workers);
   once RUNNING_JOB is done its page plays the output and draws an 8-frame filmstrip
   (SCREENSHOT-done);
5. at 390 px and 1280 px wide, checks that the jobs page and a job's page do not
   overflow sideways (a 390-px screenshot goes beside SCREENSHOT);
6. checks the browser logged no Content-Security-Policy violation.
Between 1 and 2 it compares the fps RUNNING_JOB's page shows with the API's
framesPerSecond for it, read at the same moment.
Prints one line per step; exits 1 with the reason on the first failure.
"""
import json
import os
import sys
import time
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

base, token, jobs_file, screenshot = sys.argv[1:5]


def wait(what, condition, seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            value = condition()
            if value:
                return value
        except Exception:  # the page is being redrawn
            pass
        time.sleep(0.2)
    sys.exit(f"dashboard: timed out waiting for {what}")


options = Options()
for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,800"]:
    options.add_argument(flag)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    driver.get(base + "/")
    driver.find_element(By.ID, "token").send_keys(token)
    driver.find_element(By.CSS_SELECTOR, "#token-form button").click()
    wait("the jobs page", lambda: "no jobs" in driver.find_element(By.ID, "main").text)
    open(jobs_file + ".ready", "w").close()
    running, queued = wait("the test's jobs", lambda: open(jobs_file).read().split() if os.path.exists(jobs_file) else None, 120)
    driver.refresh()
    bar = f'tr[data-job="{running}"] .bar > div'
    wait("the running job's row", lambda: driver.find_element(By.CSS_SELECTOR, bar))
    widths = []

    def moved():
        width = driver.find_element(By.CSS_SELECTOR, bar).get_attribute("style")
        if not widths or widths[-1] != width:
            widths.append(width)
        return len(widths) >= 3

    wait("the progress bar to move", moved, 90)
    print("progress bar moved:", " → ".join(widths))

    def api_fps():
        request = urllib.request.Request(base + "/v1/jobs/" + running, headers={"Authorization": "Bearer " + token})
        return json.load(urllib.request.urlopen(request, timeout=10)).get("framesPerSecond")

    driver.get(base + "/#/jobs/" + running)

    def same_fps():
        shown = driver.find_element(By.CSS_SELECTOR, "#job-fps b").text
        measured = api_fps()
        if measured is None or shown in ("", "—"):
            return None
        shown = float(shown)
        # Read a moment apart from a 10-s window: close, never the 3000 fps of event bursts.
        return (shown, measured) if abs(shown - measured) <= max(2.0, 0.25 * measured) else None

    shown, measured = wait("the page's fps to match the API's", same_fps, 60)
    print(f"fps on the job's page {shown}, the API's {measured:.1f}")

    def api(path):
        request = urllib.request.Request(base + "/v1" + path, headers={"Authorization": "Bearer " + token})
        return json.load(urllib.request.urlopen(request, timeout=10))

    played = wait("the live preview to play", lambda: driver.execute_script(
        "const v = document.getElementById('preview'); return v && v.currentTime > 0.2 ? v.currentTime : 0"), 60)
    state = api("/jobs/" + running)["state"]
    if state in ("done", "failed", "cancelled"):
        sys.exit(f"dashboard: the job was {state} before its preview played: make it longer")
    print(f"live preview played to {played:.2f} s while the job was {state}")

    def same_map():
        cells = driver.find_elements(By.CSS_SELECTOR, "#shard-map .cell")
        shards = [s for s in api("/jobs/" + running + "/shards") if s["kind"] not in ("audio", "segmentAudio")]
        shown = [cell.get_attribute("class").split()[1] for cell in cells]
        expected = ["reused" if s.get("reused") else "failing" if s["state"] == "queued" and s.get("lastError")
                    else s["state"] for s in shards]
        return (len(cells), shown) if shown == expected else None

    cells, states = wait("the shard map to show the API's states", same_map, 30)
    print(f"shard map of the running job: {cells} cells, as the API says: {' '.join(states)}")
    driver.save_screenshot(screenshot)
    print("screenshot saved")

    driver.get(base + "/#/jobs/" + queued)
    cells = wait("the shard map", lambda: driver.find_elements(By.CSS_SELECTOR, "#shard-map .cell"))
    tips = [cell.get_attribute("title") for cell in cells]
    if not all(tip.startswith("shard ") for tip in tips):
        sys.exit(f"dashboard: shard cells without hover text: {tips[:3]}")
    print(f"shard map: {len(cells)} cells")
    loaded = wait("segment thumbnails", lambda: [i for i in driver.find_elements(By.CSS_SELECTOR, "#thumbnails img")
                                                 if driver.execute_script("return arguments[0].complete && arguments[0].naturalWidth", i)])
    print(f"thumbnails: {len(loaded)} segment pictures")
    driver.find_element(By.ID, "priority-up").click()
    wait("the priority to go up", lambda: "1\npriority" in driver.find_element(By.ID, "main").text)
    print("priority raised from its page")
    driver.find_element(By.ID, "cancel").click()
    wait("the job to show cancelled", lambda: "cancelled" in driver.find_element(By.ID, "job-state").text)
    print("cancelled from its page")

    driver.get(base + "/#/workers")
    wait("a worker row with its memory", lambda: "MiB" in driver.find_element(By.ID, "main").text)
    print("workers page lists a worker")
    lines = wait("sparklines of three figures with a few points", lambda: [
        svg for svg in driver.find_elements(By.CSS_SELECTOR, "tr[data-worker] svg.spark")
        if int(svg.get_attribute("data-points")) >= 3] if "%" in driver.find_element(By.ID, "main").text else None, 30)
    if len(lines) < 3:
        sys.exit(f"dashboard: {len(lines)} sparklines, not busy, CPU and memory")
    print(f"workers page draws {len(lines)} sparklines")
    driver.save_screenshot(screenshot.replace(".png", "-workers.png"))

    wait("the running job to end", lambda: api("/jobs/" + running)["state"] == "done", 180)
    driver.get(base + "/#/jobs/" + running)
    strip = wait("the filmstrip of the output", lambda: len(driver.find_elements(By.CSS_SELECTOR, "#filmstrip canvas")) == 8, 60)
    output = wait("the output to play", lambda: driver.execute_script(
        "const v = document.getElementById('preview'); if (v.paused) v.play().catch(() => {}); return v.currentTime > 0.2 ? v.currentTime : 0"), 60)
    print(f"done job: the output played to {output:.2f} s, a filmstrip of 8 frames")
    driver.save_screenshot(screenshot.replace(".png", "-done.png"))

    def overflow():
        return driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")

    for width in (390, 1280):
        driver.set_window_size(width, 844)
        for page in ("/#/", "/#/jobs/" + running):
            driver.get(base + page)
            wait(f"{page} at {width} px", lambda: driver.find_element(By.ID, "main").text.strip())
            extra = overflow()
            if extra > 0:
                sys.exit(f"dashboard: {page} overflows {extra} px sideways at {width} px")
        if width == 390:
            driver.save_screenshot(screenshot.replace(".png", "-390.png"))
    print("no sideways overflow at 390 px and 1280 px")

    violations = [entry["message"] for entry in driver.get_log("browser") if "Content Security Policy" in entry["message"]]
    if violations:
        sys.exit(f"dashboard: the page broke its Content-Security-Policy: {violations[:2]}")
    print("no Content-Security-Policy violation")
finally:
    driver.quit()
