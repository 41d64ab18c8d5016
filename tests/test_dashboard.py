"""The embedded controller's web dashboard, in headless Chromium (Debian's chromium and
chromium-driver, driven by selenium): a switch carries 23 UDP flows and a few bad packets, an EAM is
added, and every page must show the API's own values (switches and links, pools and their use, sessions and
BIB with search and paging, EAMT, drops by reason) and draw its charts with Chart.js. Each page's
screenshot is checked for content; NAT64FABRIC_SCREENSHOTS=DIR keeps them (docs/dashboard.png is one)."""
import io
import os
import shutil
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from PIL import Image
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from nat64_setup import POOL6, PROGRAM, V4_PORT, V6_PORT, driven_switch, from_v4_server, from_v6_host
from test_observability import FABRIC

DEVICE = "device:border1"
SPARE = "device:leaf9"         # configured, never started: its link is down
CONFIG = {**FABRIC,
          "devices": {**FABRIC["devices"], SPARE: {
              "basic": {"managementAddress": "grpc://127.0.0.1:1?device_id=9"},   # nothing listens there
              "nat64fabric": {"role": "EDGE", "routerMac": "00:00:00:00:a9:01"}}},
          "links": {f"{SPARE}/1-{DEVICE}/3": {"basic": {}},
                    # a cable from one port of the running switch to another: up while the switch is
                    f"{DEVICE}/4-{DEVICE}/5": {"basic": {"type": "DIRECT", "bidirectional": False}}}}
FLOWS = 23                     # more than a page (20 rows): the session table pages
EAM = {"ipv6Prefix": "2001:db8:7::/120", "ipv4Prefix": "198.18.7.0/24"}
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"


@pytest.fixture(scope="module")
def fabric(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dashboard")
    with driven_switch(tmp, PROGRAM, CONFIG, "db", "--counter-poll-seconds", "1") as (api, dataplane, log):
        answer = None
        for sport in range(6000, 6000 + FLOWS):
            for _ in range(10):          # as a host resends: the first may beat the base entries
                dataplane.send(V6_PORT, from_v6_host(UDP(sport=sport, dport=53) / b"query"))
                answer = dataplane.poll(V4_PORT, timeout=1)
                if answer is not None:
                    break
            assert answer is not None, log.read_text()[-3000:]
        bad = bytearray(bytes(from_v4_server(UDP(sport=53, dport=Ether(answer)[UDP].sport) / b"x",
                                             dst=Ether(answer)[IP].src)))
        bad[24] ^= 0xff                  # the IPv4 header checksum: a drop by reason bad_checksum
        for _ in range(3):
            dataplane.send(V4_PORT, bytes(bad))
        assert api.call("POST", "/eamt", EAM)[0] == 201
        deadline = time.time() + 10
        while api.call("GET", "/stats")[1].get("dataplane.fabric.drops.bad_checksum", 0) < 3:
            assert time.time() < deadline, "the counter poll did not see the drops"
            time.sleep(0.3)
        yield api


@pytest.fixture(scope="module")
def browser():
    for tool in (CHROMIUM, CHROMEDRIVER):
        if not os.path.exists(tool):
            pytest.fail(f"{tool} is missing: `make deps` installs Debian's chromium and chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
                "--disable-gpu", "--no-first-run"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


def site(api):
    parts = urllib.parse.urlsplit(api.url)
    return f"{parts.scheme}://{parts.netloc}/dashboard/"


@pytest.fixture(scope="module")
def dashboard(fabric, browser):
    """The browser logged in to the dashboard with the API's credentials."""
    browser.get(site(fabric))
    user, password = fabric.user.split(":", 1)
    browser.find_element(By.ID, "user").send_keys(user)
    browser.find_element(By.ID, "password").send_keys(password)
    browser.find_element(By.CSS_SELECTOR, "#login button").click()
    wait_for(browser, "#devices")
    return browser


def wait_for(browser, css, text=None, timeout=15):
    """The element once it is there (and shows `text`); a timeout says what the page showed. The
    page redraws its tables: an element found may be gone when read, and is looked for again."""
    def found(driver):
        for e in driver.find_elements(By.CSS_SELECTOR, css):
            if text is None or text in e.text:
                return e
        return False
    try:
        return WebDriverWait(browser, timeout, ignored_exceptions=[StaleElementReferenceException]).until(found)
    except Exception:
        raise AssertionError(f"no {css!r} showing {text!r}; the page: {browser.find_element(By.TAG_NAME, 'body').text}")


def open_page(browser, name, css):
    browser.get(browser.current_url.split("#")[0] + "#" + name)
    return wait_for(browser, css)


def rows(table):
    return [[td.text for td in tr.find_elements(By.TAG_NAME, "td")] for tr in table.find_elements(By.CSS_SELECTOR, "tbody tr")]


def screenshot(browser, name, tmp_path):
    """The page's screenshot, checked for content: many colours, much of it not the background."""
    png = browser.get_screenshot_as_png()
    image = Image.open(io.BytesIO(png)).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 20)
    background = max(colours)[1]
    drawn = sum(n for n, c in colours if c != background) / (image.width * image.height)
    assert len(colours) > 50 and drawn > 0.05, f"{name}: {len(colours)} colours, {drawn:.1%} drawn: blank?"
    (tmp_path / f"{name}.png").write_bytes(png)
    keep = os.environ.get("NAT64FABRIC_SCREENSHOTS")
    if keep:
        os.makedirs(keep, exist_ok=True)
        shutil.copy(tmp_path / f"{name}.png", keep)
    return image


def test_the_files_need_no_credentials_and_the_data_does(fabric):
    with urllib.request.urlopen(site(fabric), timeout=10) as r:
        assert r.status == 200 and r.headers["Content-Type"].startswith("text/html")
        policy = r.headers["Content-Security-Policy"]
        assert "script-src 'self'" in policy and "frame-ancestors 'none'" in policy, policy
        assert b"app.js" in r.read()
    with urllib.request.urlopen(site(fabric) + "lib/chart.umd.min.js", timeout=10) as r:
        assert b"Chart" in r.read(), "Chart.js from its WebJar"
    for name in ("lib/other.js", "META-INF/MANIFEST.MF"):
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(site(fabric) + name, timeout=10)
        assert e.value.code == 404, name
    # Jetty resolves '..' before routing: these leave /dashboard/ for the API, which wants credentials
    # (or refuses an encoded one as ambiguous); either way no file
    for name in ("../pom.xml", "%2e%2e/rest-credentials"):
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(site(fabric) + name, timeout=10)
        assert e.value.code in (400, 401), name
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(urllib.request.Request(site(fabric), method="POST", data=b"x"), timeout=10)
    assert e.value.code == 405
    # the icon a browser asks for by itself: none, and no Basic challenge (which would open a login dialog)
    parts = urllib.parse.urlsplit(fabric.url)
    with urllib.request.urlopen(f"{parts.scheme}://{parts.netloc}/favicon.ico", timeout=10) as r:
        assert r.status == 204 and "WWW-Authenticate" not in r.headers
    # the data: 401 as for any client; a script's request gets no challenge (no browser dialog)
    for headers, challenge in (({}, True), ({"X-Requested-With": "nat64fabric-dashboard"}, False)):
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(urllib.request.Request(fabric.url + "/stats", headers=headers), timeout=10)
        assert e.value.code == 401 and ("WWW-Authenticate" in e.value.headers) == challenge


def test_wrong_credentials_show_no_data(fabric, browser):
    browser.get(site(fabric))
    browser.execute_script("sessionStorage.clear()")
    browser.refresh()
    browser.find_element(By.ID, "user").send_keys("nat64")
    browser.find_element(By.ID, "password").send_keys("not-the-password")
    browser.find_element(By.CSS_SELECTOR, "#login button").click()
    wait_for(browser, "#login-error", "refused")
    assert not browser.find_elements(By.CSS_SELECTOR, "#devices")


def test_fabric_page(fabric, dashboard, tmp_path):
    stats = fabric.call("GET", "/stats")[1]
    devices = fabric.call("GET", "/devices")[1]["devices"]
    table = open_page(dashboard, "fabric", "#devices")
    shown = rows(table)
    assert [r[:2] for r in shown] == [[d["id"], d["role"]] for d in devices] == [[DEVICE, "BORDER"], [SPARE, "EDGE"]]
    assert shown[0][2] == "connected, programmed" and shown[0][3] == str(devices[0]["entries"])
    assert shown[1][2] == "not connected"
    assert int(shown[0][4]) >= FLOWS and int(shown[0][5]) >= 3, "translated, dropped"
    assert dashboard.find_element(By.CSS_SELECTOR, "#tile-sessions .value").text == str(stats["sessions"]) == str(FLOWS)
    assert dashboard.find_element(By.CSS_SELECTOR, "#tile-eamt .value").text == "1"
    assert dashboard.find_element(By.CSS_SELECTOR, "#tile-connected .value").text == "1 / 2"
    screenshot(dashboard, "fabric", tmp_path)


def test_fabric_page_shows_the_links(fabric, dashboard):
    links = fabric.call("GET", "/links")[1]["links"]
    assert [(l["src"], l["dst"], l["bidirectional"], l["up"]) for l in links] == [
        ({"device": DEVICE, "port": 3}, {"device": SPARE, "port": 1}, True, False),
        ({"device": DEVICE, "port": 4}, {"device": DEVICE, "port": 5}, False, True)]
    table = open_page(dashboard, "fabric", "#links")
    assert rows(table) == [[f"{l['src']['device']}/{l['src']['port']}", f"{l['dst']['device']}/{l['dst']['port']}",
                            "both ways" if l["bidirectional"] else "one way, first to second", l["type"],
                            "up" if l["up"] else "down"] for l in links]
    states = [td.get_attribute("class") for td in table.find_elements(By.CSS_SELECTOR, "tbody td:last-child span")]
    assert states == ["no", "yes"]
    # the drawing: a line for the link between two switches, a loop for the one back to its own switch
    drawing = dashboard.find_element(By.ID, "topology")
    assert [t.text for t in drawing.find_elements(By.CSS_SELECTOR, "g.switch text")] == [DEVICE, SPARE]
    assert len(drawing.find_elements(By.CSS_SELECTOR, "g.switch.connected")) == 1
    assert len(drawing.find_elements(By.CSS_SELECTOR, "line.link.down")) == 1
    assert len(drawing.find_elements(By.CSS_SELECTOR, "circle.link.up")) == 1


def test_pools_page(fabric, dashboard, tmp_path):
    pools = fabric.call("GET", "/pools")[1]
    config = rows(open_page(dashboard, "pools", "#pool-config"))
    assert ["pool6", pools["pool6"]] in config and ["pool4", ", ".join(pools["pool4"]["addresses"])] in config
    usage = {r[0]: r[1:] for r in rows(dashboard.find_element(By.ID, "pool-usage"))}
    udp_blocks = [b for b in pools["blocks"] if b["protocol"] == "UDP"]
    low, high = pools["pool4"]["udpPorts"]
    assert usage["UDP"][:2] == [str(len(udp_blocks) * pools["pool4"]["blockSize"]), str(4 * (high - low + 1))]
    blocks = rows(dashboard.find_element(By.CSS_SELECTOR, "#blocks table"))
    assert {(r[0], r[1], r[2], r[3]) for r in blocks} == {
        (b["protocol"], b["ipv4Address"], f"{b['firstPort']}–{b['lastPort']}", b["subscriber"]) for b in pools["blocks"]}
    drawn = dashboard.execute_script("return Chart.getChart('pool-chart').data.datasets[0].data")
    assert drawn[1] == pytest.approx(100 * len(udp_blocks) * pools["pool4"]["blockSize"] / (4 * (high - low + 1)),
                                     abs=0.01)
    screenshot(dashboard, "pools", tmp_path)


def test_the_pools_page_stays_on_the_blocks_it_was_paged_to_when_it_redraws(fabric, dashboard):
    hosts = [f"2001:db8:1::{0x100 + i:x}" for i in range(21)]     # a block each: more than a page of blocks
    try:
        for i, host in enumerate(hosts):
            entry = {"protocol": "TCP", "ipv6Address": host, "ipv6Port": 80, "ipv4Address": "192.0.2.9",
                     "ipv4Port": 2048 + 64 * i}
            assert fabric.call("POST", "/bib", entry)[0] == 201, entry
        open_page(dashboard, "pools", "#blocks")
        wait_for(dashboard, "#blocks .range", "of 2")
        for _ in range(3):              # a click on a button a redraw has just replaced is lost: again
            try:
                wait_for(dashboard, "#blocks button.next").click()
                wait_for(dashboard, "#blocks .range", "21–", timeout=4)
                break
            except (AssertionError, StaleElementReferenceException):
                pass
        time.sleep(11)                  # the page redraws every 10 s
        assert wait_for(dashboard, "#blocks .range").text.startswith("21–"), "the redraw went back to the first page"
    finally:
        for host in hosts:
            fabric.call("DELETE", f"/bib/TCP/{host}/80")


def test_sessions_page_searches_and_pages(fabric, dashboard, tmp_path):
    sessions = fabric.call("GET", "/sessions")[1]["sessions"]
    assert len(sessions) == FLOWS
    results = open_page(dashboard, "sessions", "#sessions table")
    assert dashboard.find_element(By.CSS_SELECTOR, "#sessions .range").text == f"1–20 of {FLOWS}"
    first = rows(results)
    assert len(first) == 20
    screenshot(dashboard, "sessions", tmp_path)
    dashboard.find_element(By.CSS_SELECTOR, "#sessions .next").click()
    wait_for(dashboard, "#sessions .range", f"21–{FLOWS} of {FLOWS}")
    second = rows(dashboard.find_element(By.CSS_SELECTOR, "#sessions table"))
    expected = {(s["protocol"], s["ipv6Address"], str(s["ipv6Port"]), s["ipv4Address"], str(s["ipv4Port"]),
                 s["remoteIpv4Address"], str(s["remotePort"])) for s in sessions}
    assert {tuple(r[:7]) for r in first + second} == expected
    # search: the API's filters, from the form
    one = sessions[0]
    Select(dashboard.find_element(By.NAME, "protocol")).select_by_value("TCP")
    dashboard.find_element(By.CSS_SELECTOR, "form.filters button").click()
    wait_for(dashboard, "#sessions .range", "none")
    Select(dashboard.find_element(By.NAME, "protocol")).select_by_value("UDP")
    dashboard.find_element(By.NAME, "remote").send_keys(one["remoteIpv4Address"])
    dashboard.find_element(By.CSS_SELECTOR, "form.filters button").click()
    wait_for(dashboard, "#sessions .range", f"1–20 of {FLOWS}")
    dashboard.find_element(By.NAME, "remote").clear()
    dashboard.find_element(By.NAME, "remote").send_keys("203.0.113.99")
    dashboard.find_element(By.CSS_SELECTOR, "form.filters button").click()
    wait_for(dashboard, "#sessions .range", "none")


def test_bib_page_searches_and_pages(fabric, dashboard, tmp_path):
    bib = fabric.call("GET", "/bib")[1]["bib"]
    assert len(bib) == FLOWS
    table = open_page(dashboard, "bib", "#bib table")
    assert dashboard.find_element(By.CSS_SELECTOR, "#bib .range").text == f"1–20 of {FLOWS}"
    screenshot(dashboard, "bib", tmp_path)
    first = rows(table)
    dashboard.find_element(By.CSS_SELECTOR, "#bib .next").click()
    wait_for(dashboard, "#bib .range", f"21–{FLOWS} of {FLOWS}")
    second = rows(dashboard.find_element(By.CSS_SELECTOR, "#bib table"))
    assert sorted(first + second) == sorted([b["protocol"], b["ipv6Address"], str(b["ipv6Port"]), b["ipv4Address"],
                                             str(b["ipv4Port"]), "no"] for b in bib)
    dashboard.find_element(By.NAME, "ipv6Address").send_keys("2001:db8:1::99")
    dashboard.find_element(By.CSS_SELECTOR, "form.filters button").click()
    wait_for(dashboard, "#bib .range", "none")
    dashboard.find_element(By.NAME, "ipv6Address").clear()
    dashboard.find_element(By.NAME, "ipv6Address").send_keys(bib[0]["ipv6Address"])
    dashboard.find_element(By.NAME, "ipv4Address").send_keys(bib[0]["ipv4Address"])
    dashboard.find_element(By.CSS_SELECTOR, "form.filters button").click()
    wait_for(dashboard, "#bib .range", f"1–20 of {FLOWS}")
    Select(dashboard.find_element(By.NAME, "static")).select_by_value("true")
    dashboard.find_element(By.CSS_SELECTOR, "form.filters button").click()
    wait_for(dashboard, "#bib .range", "none")


def test_the_api_pages_sessions_and_bib(fabric):
    """What the pages ask for: offset and limit, in a stable order, with the total that matches."""
    for path, key in (("/sessions", "sessions"), ("/bib", "bib")):
        everything = fabric.call("GET", path)[1]
        assert everything["total"] == len(everything[key]) == FLOWS
        first = fabric.call("GET", path + "?offset=0&limit=20")[1]
        rest = fabric.call("GET", path + "?offset=20&limit=20")[1]
        assert (first["total"], len(first[key]), rest["total"], len(rest[key])) == (FLOWS, 20, FLOWS, FLOWS - 20)
        assert sorted(map(str, first[key] + rest[key])) == sorted(map(str, everything[key])), "no overlap, no gap"
        assert fabric.call("GET", path + "?offset=0&limit=20")[1] == first, "the same page twice"
        assert fabric.call("GET", path + "?offset=100")[1][key] == []
        for bad in ("offset=-1", "limit=x", "limit=1&limit=2"):
            status, body = fabric.call("GET", f"{path}?{bad}")
            assert status == 400 and body["field"] in ("offset", "limit"), (bad, body)
    one = fabric.call("GET", "/bib?ipv6Address=2001:db8:1::99")[1]
    assert one == {"total": 0, "bib": []}


def test_eamt_page(fabric, dashboard, tmp_path):
    eamt = fabric.call("GET", "/eamt")[1]["eamt"]
    table = open_page(dashboard, "eamt", "#eamt")
    assert rows(table) == [[e["ipv6Prefix"], e["ipv4Prefix"]] for e in eamt] == [[EAM["ipv6Prefix"], EAM["ipv4Prefix"]]]
    screenshot(dashboard, "eamt", tmp_path)


def test_rates_page_charts_rates_and_drops(fabric, dashboard, tmp_path):
    stats = fabric.call("GET", "/stats")[1]
    open_page(dashboard, "rates", "#drops")
    drops = {r[0]: r[1] for r in rows(dashboard.find_element(By.ID, "drops"))}
    assert drops["bad_checksum"] == str(stats["dataplane.fabric.drops.bad_checksum"]) == "3"
    time.sleep(4.5)                       # two more polls: the line chart has points
    rates = dashboard.execute_script("const c = Chart.getChart('rates-chart');"
                                     "return {labels: c.data.labels.length, sets: c.data.datasets.map(d => d.label)}")
    assert rates["labels"] >= 3 and "translated packets/s" in rates["sets"] and "dropped packets/s" in rates["sets"]
    bars = dashboard.execute_script("const c = Chart.getChart('drops-chart'); return [c.data.labels, c.data.datasets[0].data]")
    assert dict(zip(*bars))["bad_checksum"] == 3
    canvas = dashboard.find_element(By.ID, "drops-chart").screenshot_as_png
    red = sum(n for n, c in Image.open(io.BytesIO(canvas)).convert("RGB").getcolors(1 << 20) if c == (0xb4, 0x23, 0x18))
    assert red > 500, "the drop bar is drawn in its colour"
    image = screenshot(dashboard, "rates", tmp_path)
    assert image.width >= 1000
