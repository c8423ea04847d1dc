#!/usr/bin/env python3
"""Plays a job's output in Debian's headless Chromium (selenium + chromedriver) from a
signed URL, as a web page's <video src> would: no token, byte ranges for seeking.

    video-check.py PAGE_URL SIGNED_VIDEO_URL SEEK_SECONDS

Opens PAGE_URL (a page of the video's origin: headless Chromium loads no media into an
about:blank page's opaque origin), adds a muted <video> with the signed URL,
plays it until its currentTime has advanced, then seeks to SEEK_SECONDS and waits for the
`seeked` event. Prints one JSON line: {"advanced": T1, "seekedTo": T2, "duration": D,
"error": null}; exits 1 with the reason if the video fails or times out.
"""
import json
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

page, video, seek = sys.argv[1], sys.argv[2], float(sys.argv[3])

options = Options()
for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
             "--autoplay-policy=no-user-gesture-required"]:
    options.add_argument(flag)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.set_script_timeout(60)
try:
    driver.get(page)
    result = driver.execute_async_script("""
        const [src, seekTo, done] = arguments;
        const v = document.createElement('video');
        v.muted = true;
        v.src = src;
        document.body.appendChild(v);
        const fail = (why) => done({error: why + (v.error ? ' (' + v.error.code + ' ' + v.error.message + ')' : '')});
        v.addEventListener('error', () => fail('media error'));
        v.play().catch((e) => fail('play: ' + e));
        const started = Date.now();
        const advanced = setInterval(() => {
            if (v.currentTime > 0.3) {
                clearInterval(advanced);
                const t1 = v.currentTime;
                v.addEventListener('seeked', () => done({advanced: t1, seekedTo: v.currentTime, duration: v.duration, error: null}),
                                   {once: true});
                v.currentTime = seekTo;
            } else if (Date.now() - started > 30000) {
                clearInterval(advanced);
                fail('currentTime stayed at ' + v.currentTime);
            }
        }, 100);
    """, video, seek)
    print(json.dumps(result))
    if result.get("error"):
        sys.exit("video: " + result["error"])
finally:
    driver.quit()
