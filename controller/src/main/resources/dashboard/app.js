// The dashboard: pages drawn from the REST API alone, with the API's own credentials. Every value
// from the API is put into the page as text (textContent), never as HTML.
"use strict";

const API = "/onos/nat64fabric";
const AUTH_KEY = "nat64fabric.authorization";   // sessionStorage: this tab only, gone when it closes
const PAGE_SIZE = 20;
const PAGES = { fabric: fabricPage, pools: poolsPage, sessions: sessionsPage, bib: bibPage, eamt: eamtPage,
                rates: ratesPage };
const RATE_POINTS = 60;

let refresh = null;     // the shown page's timer
let charts = [];        // the shown page's Chart.js charts, destroyed when it goes

// ---- the API ----

async function get(path) {
  const answer = await fetch(API + path, {
    cache: "no-store",
    headers: { "Authorization": sessionStorage.getItem(AUTH_KEY) || "", "X-Requested-With": "nat64fabric-dashboard" },
  });
  if (answer.status === 401) {
    logOut("the API refused these credentials");
    throw new Error("401: not logged in");
  }
  const body = await answer.json();
  if (!answer.ok) {
    throw new Error(`GET ${path}: ${answer.status} ${body.field || ""} ${body.message || ""}`);
  }
  return body;
}

function query(params) {
  const q = new URLSearchParams(Object.entries(params).filter(([, v]) => v));   // no empty filter
  return q.toString() ? "?" + q : "";
}

// ---- small DOM helpers ----

function el(tag, props, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const child of children.flat()) {
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function tile(label, value, id) {
  return el("div", { className: "tile", id: id || "" },
    el("div", { className: "value" }, value), el("div", { className: "label" }, label));
}

function table(columns, rows, id) {
  return el("table", { id: id || "" },
    el("thead", {}, el("tr", {}, columns.map(c => el("th", {}, c.title)))),
    el("tbody", {}, rows.map(r => el("tr", {}, columns.map(c => el("td", {}, cell(c, r)))))));
}

function cell(column, row) {
  const v = column.value ? column.value(row) : row[column.key];
  return v instanceof Node ? v : v === undefined || v === null ? "" : String(v);
}

function yesNo(flag, yes, no) {
  return el("span", { className: flag ? "yes" : "no" }, flag ? yes : no);
}

/** Where the tables of a page that redraws itself stand, by id, until another page is shown. */
const keptOffsets = new Map();

/** A table shown PAGE_SIZE rows at a time, with Previous/Next: fetchPage(offset, limit) gives
 * {rows, total}, from the API's paging or from a list at hand (local()). A table drawn again with
 * its page (kept) stays on the rows the reader paged to. */
async function pagedTable(columns, fetchPage, id, kept = false) {
  const box = el("div", { id });
  let offset = kept ? keptOffsets.get(id) ?? 0 : 0;
  const draw = async () => {
    let { rows, total } = await fetchPage(offset, PAGE_SIZE);
    if (offset > 0 && offset >= total) {     // the rows paged to are gone: the last page there is
      offset = Math.max(0, Math.floor((total - 1) / PAGE_SIZE) * PAGE_SIZE);
      ({ rows, total } = await fetchPage(offset, PAGE_SIZE));
    }
    if (kept) {
      keptOffsets.set(id, offset);
    }
    const prev = el("button", { type: "button", disabled: offset === 0, className: "prev" }, "Previous");
    const next = el("button", { type: "button", disabled: offset + rows.length >= total, className: "next" }, "Next");
    prev.onclick = () => { offset = Math.max(0, offset - PAGE_SIZE); draw().catch(showError); };
    next.onclick = () => { offset += PAGE_SIZE; draw().catch(showError); };
    const summary = rows.length ? `${offset + 1}–${offset + rows.length} of ${total}` : "none";
    box.replaceChildren(el("div", { className: "pager" }, prev, el("span", { className: "range" }, summary), next),
      table(columns, rows));
  };
  await draw();
  return box;
}

function local(list) {
  return async (offset, limit) => ({ rows: list.slice(offset, offset + limit), total: list.length });
}

/** A page of GET path (an endpoint that pages: offset, limit, total) with these filters. */
function remote(path, key, filters) {
  return async (offset, limit) => {
    const answer = await get(path + query({ ...filters, offset: String(offset), limit: String(limit) }));
    return { rows: answer[key], total: answer.total };
  };
}

function filterForm(fields, onSubmit) {
  const form = el("form", { className: "filters" });
  for (const f of fields) {
    const input = f.options
      ? el("select", { name: f.name }, f.options.map(o => el("option", { value: o }, o || "any")))
      : el("input", { name: f.name, placeholder: f.placeholder || "" });
    form.append(el("label", {}, f.title, input));
  }
  form.append(el("button", { type: "submit" }, "Search"));
  form.onsubmit = event => { event.preventDefault(); onSubmit(Object.fromEntries(new FormData(form))); };
  return form;
}

/** The sum of the counters named PREFIX X SUFFIX, X without a dot (so not their .bytes or .perSecond). */
function sumOf(stats, prefix, suffix = "") {
  return Object.entries(stats)
    .filter(([k]) => k.startsWith(prefix) && k.endsWith(suffix)
                     && !k.slice(prefix.length, k.length - suffix.length).includes("."))
    .reduce((sum, [, v]) => sum + v, 0);
}

function chart(canvasId, config) {
  const canvas = el("canvas", { id: canvasId });
  const box = el("div", { className: "chart" }, canvas);
  queueMicrotask(() => charts.push(new Chart(canvas, config)));
  return box;
}

/** An SVG element with these attributes: values are set as attributes, never parsed as markup. */
function svg(tag, attributes, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  Object.entries(attributes).forEach(([name, value]) => node.setAttribute(name, String(value)));
  node.append(...children);
  return node;
}

/** The switches on a circle and the links between them, drawn from the API's lists; a link from a
 * switch to itself is a small loop beside it (across the circle's direction, clear of its label). */
function topology(devices, links) {
  const size = 420, middle = size / 2, radius = 150;
  const ids = [...new Set([...devices.map(d => d.id), ...links.flatMap(l => [l.src.device, l.dst.device])])];
  const place = Object.fromEntries(ids.map((id, i) => {
    const angle = 2 * Math.PI * i / ids.length - Math.PI / 2;
    return [id, { x: middle + radius * Math.cos(angle), y: middle + radius * Math.sin(angle), angle }];
  }));
  const connected = new Set(devices.filter(d => d.connected).map(d => d.id));
  const state = l => (l.up ? "link up" : "link down");
  const lines = links.map(l => {
    const a = place[l.src.device], b = place[l.dst.device];
    const title = svg("title", {}, `${l.src.device}/${l.src.port} – ${l.dst.device}/${l.dst.port}: ${l.up ? "up" : "down"}`);
    return a === b
      ? svg("circle", { class: state(l), cx: a.x - 26 * Math.sin(a.angle), cy: a.y + 26 * Math.cos(a.angle), r: 14 }, title)
      : svg("line", { class: state(l), x1: a.x, y1: a.y, x2: b.x, y2: b.y }, title);
  });
  const nodes = ids.map(id => svg("g", { class: connected.has(id) ? "switch connected" : "switch" },
    svg("circle", { cx: place[id].x, cy: place[id].y, r: 10 }),
    svg("text", { x: place[id].x, y: place[id].y - 16, "text-anchor": "middle" }, id)));
  return svg("svg", { id: "topology", class: "topology", width: size, height: size, viewBox: `0 0 ${size} ${size}`,
                      role: "img", "aria-label": "the fabric's switches and links" }, ...lines, ...nodes);
}

// ---- pages ----

async function fabricPage(page) {
  const [devices, stats, links] = await Promise.all([get("/devices"), get("/stats"), get("/links")]);
  const perSwitch = (d, family) => sumOf(stats, `dataplane.${d.id}.${family}.`);
  page.replaceChildren(
    el("h2", {}, "Fabric"),
    el("div", { className: "tiles" },
      tile("switches connected", `${devices.devices.filter(d => d.connected).length} / ${devices.devices.length}`,
        "tile-connected"),
      tile("sessions", stats.sessions, "tile-sessions"), tile("BIB entries", stats.bib, "tile-bib"),
      tile("port blocks", stats.portBlocks, "tile-blocks"), tile("EAMs", stats.eamt, "tile-eamt"),
      tile("set-ups translated", stats["setups.translated"] || 0, "tile-setups")),
    el("h2", {}, "Switches"),
    table([
      { title: "switch", key: "id" },
      { title: "role", key: "role" },
      { title: "connection", value: d => yesNo(d.connected, "connected, programmed", "not connected") },
      { title: "entries held", key: "entries" },
      { title: "packets translated", value: d => perSwitch(d, "translations") },
      { title: "packets dropped", value: d => perSwitch(d, "drops") },
      { title: "packets punted", value: d => perSwitch(d, "punts") },
    ], devices.devices, "devices"),
    el("h2", {}, "Links"),
    el("div", { className: "charts" },
      links.links.length
        ? table([
          { title: "end", value: l => `${l.src.device}/${l.src.port}` },
          { title: "end", value: l => `${l.dst.device}/${l.dst.port}` },
          { title: "direction", value: l => (l.bidirectional ? "both ways" : "one way, first to second") },
          { title: "type", key: "type" },
          { title: "state", value: l => yesNo(l.up, "up", "down") },
        ], links.links, "links")
        : el("p", { id: "links" }, "No links known: give them under links in the configuration (docs/netcfg.md)."),
      topology(devices.devices, links.links)));
  return 5000;
}

function portsOf(prefixes) {
  return prefixes.reduce((n, p) => n + 2 ** (32 - Number(p.split("/")[1] ?? 32)), 0);
}

async function poolsPage(page) {
  const pools = await get("/pools");
  const p4 = pools.pool4;
  const ranges = { TCP: p4.tcpPorts, UDP: p4.udpPorts, ICMP: p4.icmpPorts };
  const usage = Object.entries(ranges).map(([protocol, [low, high]]) => {
    const total = portsOf(p4.addresses) * (high - low + 1);
    const used = pools.blocks.filter(b => b.protocol === protocol).length * p4.blockSize;
    return { protocol, used, total, percent: (100 * used / total).toFixed(2) };
  });
  const blocks = await pagedTable([{ title: "protocol", key: "protocol" }, { title: "IPv4 address", key: "ipv4Address" },
                { title: "ports", value: b => `${b.firstPort}–${b.lastPort}` },
                { title: "subscriber", key: "subscriber" }], local(pools.blocks), "blocks", true);
  page.replaceChildren(
    el("h2", {}, "Pools"),
    table([{ title: "pool", key: "name" }, { title: "value", key: "value" }], [
      { name: "pool6", value: pools.pool6 },
      { name: "pool4", value: p4.addresses.join(", ") },
      { name: "port ranges", value: `TCP ${p4.tcpPorts.join("–")}, UDP ${p4.udpPorts.join("–")}, ICMP ${p4.icmpPorts.join("–")}` },
      { name: "blocks", value: `${p4.blockSize} ports, at most ${p4.blocksPerSubscriber} per subscriber, held ${p4.holdSeconds} s after use` },
    ], "pool-config"),
    el("h2", {}, "Use of pool4's ports"),
    el("div", { className: "charts" },
      table([{ title: "protocol", key: "protocol" }, { title: "ports in blocks", key: "used" },
             { title: "ports", key: "total" }, { title: "in use %", key: "percent" }], usage, "pool-usage"),
      chart("pool-chart", {
        type: "bar",
        data: { labels: usage.map(u => u.protocol),
                datasets: [{ label: "% of pool4's ports in blocks", data: usage.map(u => Number(u.percent)),
                             backgroundColor: "#2f6db5" }] },
        options: { animation: false, maintainAspectRatio: false, indexAxis: "y" },
      })),
    el("h2", {}, "Port blocks held"),
    blocks);
  return 10000;
}

async function sessionsPage(page) {
  const results = el("div", { id: "session-results" });
  const search = async filters => {
    results.replaceChildren(await pagedTable([
      { title: "protocol", key: "protocol" }, { title: "IPv6 host", key: "ipv6Address" },
      { title: "port", key: "ipv6Port" }, { title: "IPv4 address", key: "ipv4Address" },
      { title: "port", key: "ipv4Port" }, { title: "remote", key: "remoteIpv4Address" },
      { title: "port", key: "remotePort" }, { title: "TCP state", key: "tcpState" },
      { title: "lifetime s", key: "lifetimeSeconds" }], remote("/sessions", "sessions", filters), "sessions"));
  };
  page.replaceChildren(el("h2", {}, "Sessions"),
    filterForm([{ name: "protocol", title: "protocol", options: ["", "TCP", "UDP", "ICMP"] },
                { name: "ipv6Address", title: "IPv6 host", placeholder: "2001:db8:1::10" },
                { name: "ipv4Address", title: "IPv4 address (pool4)", placeholder: "192.0.2.0" },
                { name: "remote", title: "remote IPv4", placeholder: "198.51.100.10" }],
               filters => search(filters).catch(showError)),
    results);
  await search({});
  return null;
}

async function bibPage(page) {
  const results = el("div", { id: "bib-results" });
  const search = async filters => {
    results.replaceChildren(await pagedTable([
      { title: "protocol", key: "protocol" }, { title: "IPv6 address", key: "ipv6Address" },
      { title: "port", key: "ipv6Port" }, { title: "IPv4 address", key: "ipv4Address" },
      { title: "port", key: "ipv4Port" }, { title: "static", value: b => (b.static ? "yes" : "no") }], remote("/bib", "bib", filters),
      "bib"));
  };
  page.replaceChildren(el("h2", {}, "BIB"),
    filterForm([{ name: "protocol", title: "protocol", options: ["", "TCP", "UDP", "ICMP"] },
                { name: "static", title: "static", options: ["", "true", "false"] },
                { name: "ipv6Address", title: "IPv6 host", placeholder: "2001:db8:1::10" },
                { name: "ipv4Address", title: "IPv4 address (pool4)", placeholder: "192.0.2.0" }],
               filters => search(filters).catch(showError)),
    results);
  await search({});
  return null;
}

async function eamtPage(page) {
  const { eamt } = await get("/eamt");
  page.replaceChildren(el("h2", {}, "EAMT (RFC 7757)"),
    eamt.length ? table([{ title: "IPv6 prefix", key: "ipv6Prefix" }, { title: "IPv4 prefix", key: "ipv4Prefix" }],
                        eamt, "eamt")
                : el("p", { id: "eamt" }, "No explicit address mappings."));
  return 10000;
}

/** Rates over the last minutes and drops by reason, redrawn from GET /stats every 2 s. */
async function ratesPage(page) {
  const rates = { labels: [], datasets: [
    { label: "translated packets/s", data: [], borderColor: "#2f6db5" },
    { label: "dropped packets/s", data: [], borderColor: "#b42318" },
    { label: "punted packets/s", data: [], borderColor: "#d08b00" },
    { label: "set-ups/s", data: [], borderColor: "#17803d" }] };
  const drops = { labels: [], datasets: [{ label: "packets dropped (fabric, since start)", data: [],
                                           backgroundColor: "#b42318" }] };
  const dropTable = el("div", { id: "drop-reasons" });
  page.replaceChildren(el("h2", {}, "Rates"),
    el("div", { className: "charts" },
      chart("rates-chart", { type: "line", data: rates,
        options: { animation: false, maintainAspectRatio: false, scales: { y: { beginAtZero: true } } } }),
      chart("drops-chart", { type: "bar", data: drops,
        options: { animation: false, maintainAspectRatio: false, indexAxis: "y" } })),
    el("h2", {}, "Drops by reason"), dropTable);
  let last = null;
  return async function update() {
    const stats = await get("/stats");
    const now = Date.now();
    const setups = stats["setups.translated"] || 0;
    rates.labels.push(new Date(now).toLocaleTimeString());
    rates.datasets[0].data.push(sumOf(stats, "dataplane.fabric.translations.", ".perSecond"));
    rates.datasets[1].data.push(sumOf(stats, "dataplane.fabric.drops.", ".perSecond"));
    rates.datasets[2].data.push(sumOf(stats, "dataplane.fabric.punts.", ".perSecond"));
    rates.datasets[3].data.push(last ? Math.max(0, (setups - last.setups) * 1000 / (now - last.time)) : 0);
    last = { setups, time: now };
    if (rates.labels.length > RATE_POINTS) {
      rates.labels.shift();
      rates.datasets.forEach(d => d.data.shift());
    }
    const reasons = Object.keys(stats).filter(k => /^dataplane\.fabric\.drops\.[a-z0-9_]+$/.test(k))
      .map(k => ({ reason: k.split(".").pop(), packets: stats[k], perSecond: stats[k + ".perSecond"] ?? 0 }))
      .sort((a, b) => b.packets - a.packets);
    drops.labels = reasons.map(r => r.reason);
    drops.datasets[0].data = reasons.map(r => r.packets);
    charts.forEach(c => c.update());
    dropTable.replaceChildren(reasons.length
      ? table([{ title: "reason", key: "reason" }, { title: "packets", key: "packets" },
               { title: "per second", key: "perSecond" }], reasons, "drops")
      : el("p", {}, "No packet dropped."));
  };
}

// ---- navigation and login ----

function showError(error) {
  document.getElementById("status").textContent = "error: " + error.message;
}

function destroyCharts() {
  charts.forEach(c => c.destroy());
  charts = [];
}

/** The page drawn anew (its charts too). */
function redraw(name) {
  return page => {
    destroyCharts();
    return PAGES[name](page);
  };
}

async function show() {
  clearTimeout(refresh);
  destroyCharts();
  keptOffsets.clear();
  if (!sessionStorage.getItem(AUTH_KEY)) {
    return;
  }
  const name = PAGES[location.hash.slice(1)] ? location.hash.slice(1) : "fabric";
  document.querySelectorAll("nav a").forEach(a => a.classList.toggle("current", a.hash === "#" + name));
  const page = el("section", { id: "page-" + name });
  document.getElementById("page").replaceChildren(page);
  const shown = location.hash;
  const tick = async draw => {
    try {
      const again = await draw(page);
      document.getElementById("status").textContent = "updated " + new Date().toLocaleTimeString();
      return again;
    } catch (error) {
      showError(error);
      return 5000;
    }
  };
  const first = await tick(redraw(name));
  if (typeof first === "function") {       // a page that keeps updating itself
    const loop = async () => {
      if (location.hash !== shown) return;
      await tick(first);
      refresh = setTimeout(loop, 2000);
    };
    loop();
  } else if (first) {
    const loop = () => { refresh = setTimeout(async () => {
      if (location.hash === shown) { await tick(redraw(name)); loop(); }
    }, first); };
    loop();
  }
}

function base64(text) {
  return btoa(String.fromCharCode(...new TextEncoder().encode(text)));
}

function logOut(reason) {
  sessionStorage.removeItem(AUTH_KEY);
  clearTimeout(refresh);
  document.getElementById("nav").hidden = true;
  document.getElementById("page").replaceChildren();
  document.getElementById("login").hidden = false;
  document.getElementById("login-error").textContent = reason || "";
}

function loggedIn() {
  document.getElementById("login").hidden = true;
  document.getElementById("nav").hidden = false;
  show();
}

document.getElementById("login").onsubmit = async event => {
  event.preventDefault();
  const user = document.getElementById("user").value;
  const password = document.getElementById("password").value;
  sessionStorage.setItem(AUTH_KEY, "Basic " + base64(user + ":" + password));
  try {
    await get("/devices");
    document.getElementById("password").value = "";
    loggedIn();
  } catch (error) {
    if (sessionStorage.getItem(AUTH_KEY)) {
      document.getElementById("login-error").textContent = error.message;
    }
  }
};
document.getElementById("logout").onclick = () => logOut("logged out");
window.onhashchange = show;
if (sessionStorage.getItem(AUTH_KEY)) {
  loggedIn();
} else {
  logOut();
}
