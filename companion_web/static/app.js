// Tunnel Vision companion: the table screen and the phone pages.
// The server sends a complete view of the game for this screen (on load, in every answer,
// and on the event stream); this script only lays it out and sends what the player taps.
// Text from players (names) is always set with textContent, never as HTML.
"use strict";

(() => {
  const $ = (selector, root = document) => root.querySelector(selector);
  const $$ = (selector, root = document) => Array.from(root.querySelectorAll(selector));
  const STRINGS = JSON.parse($("#strings").textContent);
  const t = (key, params = {}) =>
    (STRINGS[key] ?? key).replace(/\{(\w+)\}/g, (whole, name) => (name in params ? params[name] : whole));

  const body = document.body;
  const page = body.dataset.page;
  const gameId = body.dataset.game;
  const tokenKey = `tv.seat.${gameId}`;
  let viewKind = body.dataset.view;
  let view = JSON.parse($("#initial-view").textContent);

  // ------------------------------------------------------------------ small helpers

  function el(tag, attrs = {}, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children) if (child !== null && child !== undefined) node.append(child);
    return node;
  }

  function fill(list, items) {
    list.replaceChildren(...items);
  }

  function options(select, items, keep = true) {
    const before = select.value;
    fill(select, items.map(([value, label]) => el("option", { value: String(value), text: label })));
    if (keep && items.some(([value]) => String(value) === before)) select.value = before;
  }

  let toastTimer = null;
  function toast(message, tone = "bad") {
    const box = $("#toast");
    box.textContent = message;
    box.dataset.tone = tone;
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { box.hidden = true; }, tone === "bad" ? 6000 : 2500);
  }

  function show(selector, visible) {
    const node = typeof selector === "string" ? $(selector) : selector;
    if (node) node.hidden = !visible;
  }

  // ------------------------------------------------------------------ talking to the server

  function headers() {
    const out = { "Content-Type": "application/json", Accept: "application/json" };
    const token = page === "player" ? localStorage.getItem(tokenKey) : null;
    if (token) out["X-Seat-Token"] = token;
    return out;
  }

  // A request the server refuses (or that never reaches it) is told to the player in a
  // toast, then thrown for the callers that act on it (a form that stays open...). A tap
  // handler that does not catch it leaves it to the handler below: told already, it is no
  // uncaught error (a second tap on a gold card just taken must not look like a crash).
  class Refused extends Error {}
  window.addEventListener("unhandledrejection", (event) => {
    if (event.reason instanceof Refused) event.preventDefault();
  });

  async function api(path, data = {}) {
    let response;
    try {
      response = await fetch(`/api/g/${gameId}/${path}`, {
        method: "POST", headers: headers(), body: JSON.stringify(data), credentials: "same-origin",
      });
    } catch (err) {
      toast(t("ui.error"));
      throw new Refused(String(err));
    }
    let payload = {};
    try { payload = await response.json(); } catch (err) { /* not JSON: keep the status */ }
    if (!response.ok) {
      toast(payload.error || t("ui.error"));
      const failure = new Refused(payload.error || response.statusText);
      failure.status = response.status;
      throw failure;
    }
    if (payload.view) render(payload.view);
    return payload;
  }

  // One stream per screen. The browser reconnects by itself; a watchdog covers streams
  // that die silently, and a phone closes its stream while hidden (asleep, in a pocket)
  // and opens a fresh one the moment it is shown again.
  let source = null;
  let lastHeard = 0;
  let stopped = false;

  function setConnection(live, text) {
    const box = $("#conn");
    box.dataset.live = live ? "yes" : "no";
    box.textContent = text || (live ? t("ui.conn-live") : t("ui.conn-lost"));
  }

  function connect() {
    if (source) source.close();
    stopped = false;
    lastHeard = Date.now();
    source = new EventSource(`/api/g/${gameId}/events?view=${viewKind}`);
    source.addEventListener("view", (event) => {
      lastHeard = Date.now();
      setConnection(true);
      render(JSON.parse(event.data));
    });
    source.addEventListener("ping", () => { lastHeard = Date.now(); setConnection(true); });
    source.addEventListener("replaced", () => {
      stop();
      setConnection(false, t("ui.replaced"));
      const again = el("button", { type: "button", class: "link", text: t("ui.reconnect"), onclick: connect });
      $("#conn").append(" ", again);
    });
    source.addEventListener("revoked", () => {
      stop();
      localStorage.removeItem(tokenKey);
      toast(t("ui.revoked"));
      setTimeout(() => location.reload(), 1500);
    });
    source.onerror = () => {
      setConnection(false);
      if (source && source.readyState === EventSource.CLOSED && !stopped) setTimeout(connect, 2000);
    };
  }

  function stop() {
    stopped = true;
    if (source) source.close();
    source = null;
  }

  setInterval(() => {
    if (!stopped && !document.hidden && Date.now() - lastHeard > 40000) connect();
  }, 5000);

  document.addEventListener("visibilitychange", () => {
    if (page !== "player") return;
    if (document.hidden) { stop(); return; }
    start();
  });

  async function start() {
    if (page === "player" && viewKind !== "seat" && localStorage.getItem(tokenKey)) {
      // The cookie may be gone (a browser that clears cookies); the stored token restores it.
      try {
        await api("resume");
        viewKind = "seat";
      } catch (err) {
        if (err.status === 401 || err.status === 403) localStorage.removeItem(tokenKey);
      }
    }
    connect();
  }

  // ------------------------------------------------------------------ shared rendering

  let lastSvg = "";

  function renderCommon(v) {
    $("#game-title").textContent = v.game.title;
    $("#round-label").textContent = v.game.round
      ? t("ui.round-of", { round: v.game.round, rounds: v.game.rounds }) : t("ui.lobby");
    body.dataset.phase = v.game.phase;
    $("#status").textContent = v.status;
    const result = $("#result");
    if (result) {
      show(result, Boolean(v.result));
      if (v.result) {
        result.textContent = `${t("ui.round-result", { round: v.result.round })}: ` + (v.result.gold_reached
          ? t("ui.result-gold", { name: v.result.finisher }) : t("ui.result-none"));
      }
    }
    // the dwarf cards turned over at the round's end: everyone's role, until the next deal
    const roles = $("#round-roles");
    if (roles) {
      const shown = v.result ? v.result.roles : [];
      show(roles, shown.length > 0);
      fill(roles, shown.map((row) => el("li", {}, el("span", { class: "seat-name", text: row.name }),
        el("span", { class: `role role-${row.role}`, text: row.role_name }))));
    }
    if (v.board.svg !== lastSvg) {
      $("#maze").innerHTML = v.board.svg; // drawn by the server from public placements; no player text inside
      lastSvg = v.board.svg;
    }
    renderSeats(v);
    fill($("#log"), v.log.slice().reverse().map((line) => el("li", { class: `tone-${line.tone}`, text: line.text })));
    renderFinal(v);
  }

  function renderSeats(v) {
    const items = v.seats.map((seat) => {
      const chips = [];
      if (seat.broken.length) chips.push(el("span", { class: "chip bad", text: t("ui.broken", { tools: seat.broken.join(", ") }) }));
      if (seat.trapped) chips.push(el("span", { class: "chip bad", text: t("ui.trapped") }));
      if (seat.theft) chips.push(el("span", { class: "chip", text: t("ui.theft-card") }));
      const state = seat.claimable ? t("ui.free") : seat.connected ? t("ui.connected") : t("ui.offline");
      return el("li", { class: seat.turn ? "turn" : null, "aria-current": seat.turn ? "step" : null },
        el("span", { class: `dot ${seat.connected ? "on" : "off"}`, title: state, "aria-label": state }),
        el("span", { class: "seat-name", text: seat.name }),
        seat.turn ? el("span", { class: "turn-mark", text: "◀", "aria-label": t("ui.their-turn") }) : null,
        ...chips);
    });
    fill($("#seats"), items);
  }

  function renderFinal(v) {
    const panel = $("#final-panel");
    show(panel, Boolean(v.final));
    if (!v.final) return;
    const ranking = el("ol", { class: "ranking" }, ...v.final.ranking.map((row) =>
      el("li", { class: row.rank === 1 ? "winner" : null },
        el("span", { class: "rank", text: String(row.rank) }),
        el("span", { class: "seat-name", text: row.name }),
        el("span", { class: "gold-value", text: t("ui.nuggets", { n: row.gold }) }))));
    const table = el("table", { class: "reveal" },
      el("thead", {}, el("tr", {},
        el("th", { scope: "col", text: t("ui.name") }), el("th", { scope: "col", text: t("ui.roles") }),
        el("th", { scope: "col", text: t("ui.gold") }))),
      el("tbody", {}, ...v.final.players.map((p) => el("tr", {},
        el("th", { scope: "row", text: p.name }), el("td", { text: p.roles.join(" · ") }),
        el("td", { text: p.gold.length ? `${p.total} (${p.gold.join(", ")})` : String(p.total) })))));
    fill($("#final"), [ranking, table]);
  }

  function seatOptions(v) {
    return v.seats.map((s) => [s.seat, s.name]);
  }

  function goalLabel(goal) {
    const cell = `(${goal.x},${goal.y})`;
    const key = goal.y > 0 ? "ui.goal-top" : goal.y < 0 ? "ui.goal-bottom" : "ui.goal-middle";
    return t(key, { cell });
  }

  // Fields of an action-card form shown for what the chosen card needs (from the server's list).
  function syncActionFields(form, v) {
    const card = v.game.actions.find((a) => a.id === form.elements.card.value);
    const needs = card ? card.needs : [];
    for (const box of $$("[data-need]", form)) {
      const need = box.dataset.need;
      const wanted = needs.includes(need) && (need !== "tool" || card.tools.length > 1);
      box.hidden = !wanted;
      const select = $("select", box);
      select.disabled = !wanted;
      if (need === "tool" && card) options(select, card.tools.map((tool, i) => [tool, card.tool_names[i]]));
      if (need === "cell" && card) {
        const cells = card.effect === "map" ? v.board.goals.filter((g) => g.state === "hidden").map((g) => [g.x, g.y])
          : v.board.path_cells;
        options(select, cells.map(([x, y]) => [`${x},${y}`, `(${x},${y})`]));
      }
    }
  }

  function actionBody(form) {
    const data = { card: form.elements.card.value };
    for (const box of $$("[data-need]", form)) {
      if (box.hidden) continue;
      const select = $("select", box);
      if (box.dataset.need === "target") data.target = Number(select.value);
      if (box.dataset.need === "tool") data.tool = select.value;
      if (box.dataset.need === "cell") data.cell = select.value.split(",").map(Number);
    }
    return data;
  }

  // ------------------------------------------------------------------ the phone

  function renderPlayer(v) {
    const me = v.me;
    const seated = v.viewer.kind === "seat" && me;
    show("#join-panel", !seated);
    show("#seat-panel", seated);
    if (!seated) {
      renderJoin(v);
      return;
    }
    const phase = v.game.phase;
    show("#role-card", Boolean(me.role));
    if (me.role) {
      $("#role-name").textContent = me.role_name;
      $("#role-hint").textContent = me.role_hint;
    }
    const result = $("#result");
    if (me.won !== null && me.won !== undefined && phase !== "playing") {
      result.hidden = false;
      result.textContent = `${result.textContent} ${me.won ? t("ui.won") : t("ui.lost")}`.trim();
    }
    show("#turn-panel", Boolean(me.my_turn));
    if (!me.my_turn) closeForms();
    renderTurnTools(v);

    show("#pick-panel", Boolean(me.pick));
    if (me.pick) {
      fill($("#pick-cards"), me.pick.cards.map((value, index) =>
        el("button", { type: "button", class: "gold-card", onclick: () => api("pick", { index }),
          "aria-label": t("ui.nuggets", { n: value }) },
          el("span", { class: "nugget", "aria-hidden": "true", text: "●".repeat(value) }),
          el("span", { text: t("ui.nuggets", { n: value }) }))));
    }
    show("#steal-panel", Boolean(me.steal));
    if (me.steal) {
      fill($("#steal-victims"), me.steal.victims.map((victim) =>
        el("button", { type: "button", text: t("ui.steal-from", { name: victim.name }),
          onclick: () => api("steal", { victim: victim.seat }) })));
    }

    $("#seat-note").textContent = t("ui.your-seat", { n: v.seats[me.seat].slot });
    show("#mine-panel", me.gold !== undefined);
    if (me.gold !== undefined) {
      const text = me.gold.length ? `${t("ui.gold-total", { total: me.gold_total })} (${me.gold.join(", ")})` : t("ui.no-gold");
      $("#my-gold").textContent = me.round_gold ? `${text} · ${t("ui.round-gold", { gold: me.round_gold })}` : text;
    }
    const mine = v.seats[me.seat];
    const chips = [];
    if (mine.broken.length) chips.push(el("span", { class: "chip bad", text: t("ui.broken", { tools: mine.broken.join(", ") }) }));
    if (mine.trapped) chips.push(el("span", { class: "chip bad", text: t("ui.trapped") }));
    if (mine.theft) chips.push(el("span", { class: "chip", text: t("ui.theft-card") }));
    fill($("#my-chips"), chips);
    const peeks = me.peeks || [];
    show("#peeks-block", peeks.length > 0);
    fill($("#my-peeks"), peeks.map((p) => el("li", { class: p.gold ? "gold" : null, text: p.text })));

    show("#leave", phase === "lobby");
    show("#next-game", Boolean(v.game.next_game));
    if (v.game.next_game) $("#next-game-link").href = `/g/${v.game.next_game}/join`;
  }

  function renderTurnTools(v) {
    const goals = v.board.goals.filter((g) => g.state === "hidden");
    $("#open-peek").disabled = goals.length === 0;
    fill($("#peek-goals"), goals.map((goal) => el("button", { type: "button", class: "goal-button", text: goalLabel(goal),
      onclick: async () => {
        const answer = await api("peek", { cell: [goal.x, goal.y] });
        closeForms();
        const seen = answer.view.me.peeks;
        if (seen.length) toast(seen[seen.length - 1].text, "good");
      } })));
    const form = $("#action-form");
    const card = form.elements.card;
    options(card, v.game.actions.filter((a) => a.effect !== "map").map((a) => [a.id, a.name]));
    options(form.elements.target, seatOptions(v));
    syncActionFields(form, v);
    const removable = v.game.removable.filter((r) => {
      const mine = v.seats[v.me.seat];
      if (r.id === "trapped") return mine.trapped;
      if (r.id === "theft") return mine.theft;
      return mine.broken_ids.includes(r.id.replace("broken-", ""));
    });
    show("#open-remove", removable.length > 0);
    options($("#remove-card"), removable.map((r) => [r.id, r.name]));
  }

  function closeForms() {
    for (const id of ["peek-chooser", "action-form", "remove-form"]) show(`#${id}`, false);
  }

  function renderJoin(v) {
    const lobby = v.game.phase === "lobby";
    show("#join-form", lobby);
    show("#claim-panel", !lobby);
    if (lobby) {
      const taken = new Map(v.seats.map((s) => [s.slot, s.name]));
      const current = ($("input[name=slot]:checked") || {}).value;
      const firstFree = [...Array(v.game.max_players).keys()].map((i) => i + 1).find((n) => !taken.has(n));
      fill($("#join-slots"), [...Array(v.game.max_players).keys()].map((i) => {
        const n = i + 1;
        const who = taken.get(n);
        const checked = current ? String(n) === current && !who : n === firstFree;
        return el("label", { class: `slot${who ? " taken" : ""}` },
          el("input", { type: "radio", name: "slot", value: String(n), disabled: Boolean(who), checked }),
          el("span", { class: "slot-number", text: String(n) }),
          el("span", { class: "slot-name", text: who || t("ui.seat-n", { n }) }));
      }));
    } else {
      fill($("#claim-seats"), v.seats.filter((s) => s.claimable).map((s) =>
        el("button", { type: "button", class: "primary", text: t("ui.take-over", { name: s.name }),
          onclick: () => seatTaken(api("claim", { seat: s.seat })) })));
    }
  }

  async function seatTaken(request) {
    const payload = await request;
    localStorage.setItem(tokenKey, payload.token);
    viewKind = "seat";
    connect();
  }

  function bindPlayer() {
    $("#join-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const slot = $("input[name=slot]:checked");
      const name = $("#join-name").value.trim();
      if (!name) { $("#join-name").focus(); toast(t("ui.your-name")); return; }
      if (!slot) { toast(t("ui.pick-seat")); return; }
      seatTaken(api("join", { name, slot: Number(slot.value) })).catch(() => {});
    });
    $("#role-card").addEventListener("click", (event) => {
      const card = event.currentTarget;
      const open = card.getAttribute("aria-pressed") !== "true";
      card.setAttribute("aria-pressed", String(open));
      $(".role-cover", card).hidden = open;
      $(".role-face", card).hidden = !open;
      // Hide again by itself: a phone left face up on the table should not tell the role.
      clearTimeout(card.hideTimer);
      if (open) card.hideTimer = setTimeout(() => open && card.click(), 8000);
    });
    $("#open-peek").addEventListener("click", () => { closeForms(); show("#peek-chooser", true); });
    $("#open-action").addEventListener("click", () => { closeForms(); show("#action-form", true); syncActionFields($("#action-form"), view); });
    $("#open-remove").addEventListener("click", () => { closeForms(); show("#remove-form", true); });
    for (const button of $$("[data-close]")) button.addEventListener("click", () => show(`#${button.dataset.close}`, false));
    $("#action-form").elements.card.addEventListener("change", () => syncActionFields($("#action-form"), view));
    $("#action-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      await api("action", actionBody(event.currentTarget));
      closeForms();
      toast(t("ui.done"), "good");
    });
    $("#remove-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      await api("remove-own", { card: $("#remove-card").value });
      closeForms();
    });
    $("#pass").addEventListener("click", () => api("pass"));
    $("#steal-skip").addEventListener("click", () => api("steal", { victim: null }));
    $("#leave").addEventListener("click", async () => {
      await api("leave");
      localStorage.removeItem(tokenKey);
      location.reload();
    });
  }

  // ------------------------------------------------------------------ the table screen

  function renderTable(v) {
    const verdict = $("#verdict");
    show(verdict, Boolean(v.verdict) && v.game.phase !== "lobby");
    if (v.verdict) {
      verdict.textContent = v.verdict.text;
      verdict.dataset.tone = v.verdict.tone;
    }
    fill($("#contested"), v.contested.map((c) => el("li", {},
      el("strong", { text: `${c.name}: ${c.face} (${c.x},${c.y}) — ` }), c.reasons.join("; "),
      viewKind === "host" ? el("button", { type: "button", class: "small-button", text: t("ui.take-back"),
        onclick: () => api("feed", { change: "removed", x: c.x, y: c.y }) }) : null)));
    for (const select of $$("select[data-seats]")) options(select, seatOptions(v));
    for (const select of $$("select[data-faces]")) options(select, v.game.faces.map((f) => [f, f]));
    if (v.turn) for (const select of $$("#check-form select[name=seat], #host-action-form select[name=for_seat]")) {
      if (!select.dataset.touched) select.value = String(v.turn.seat);
    }
    if (viewKind === "host" && v.host) renderHost(v);
  }

  function renderHost(v) {
    const start = $("#start-round");
    start.textContent = t("ui.start-round", { n: v.game.round + 1 });
    start.disabled = !v.host.can_start;
    show(start, v.game.phase === "lobby" || v.game.phase === "between");
    $("#start-blocker").textContent = v.host.start_blocker || "";
    const playing = v.game.phase === "playing";
    $("#exhausted").disabled = !playing;
    $("#laid-button").textContent = t("ui.laid", { name: v.turn ? v.turn.name : "…" });
    for (const button of $$("#cell-form button, #host-action-form button, #turn-form button")) {
      if (button.dataset.op !== "removed" && !button.dataset.op?.startsWith("fix")) button.disabled = !playing;
    }
    const form = $("#host-action-form");
    options(form.elements.card, v.game.actions.map((a) => [a.id, a.name]));
    syncActionFields(form, v);
    fill($("#moves"), v.host.moves.map((move) => el("li", {},
      el("span", { text: `${move.number}. ${move.text} ` }),
      move.reattributable ? reattributeSelect(v, move) : null)));
    $("#undo").disabled = !v.host.can_undo;
    fill($("#seat-admin"), v.seats.map((seat) => el("li", {},
      el("span", { text: seat.name }),
      el("button", { type: "button", class: "small-button", text: t("ui.free-seat"), disabled: seat.claimable,
        onclick: () => api("free-seat", { seat: seat.seat }) }))));
  }

  function reattributeSelect(v, move) {
    const select = el("select", { "aria-label": t("ui.as-player") });
    options(select, seatOptions(v), false);
    select.value = String(move.seat);
    select.addEventListener("change", () => api("reattribute", { number: move.number, seat: Number(select.value) })
      .catch(() => { select.value = String(move.seat); }));
    return select;
  }

  function cellFormData(form) {
    return {
      face: (form.elements.face && form.elements.face.value) || undefined,
      x: Number(form.elements.x.value), y: Number(form.elements.y.value),
      rotation: Number(form.elements.rotation.value),
    };
  }

  function bindTable() {
    $("#maze").addEventListener("click", (event) => {
      const cell = event.target.closest("[data-x]");
      if (!cell) return;
      for (const form of $$("#check-form, #cell-form")) {
        form.elements.x.value = cell.dataset.x;
        form.elements.y.value = cell.dataset.y;
      }
      const face = cell.dataset.face;
      if (face && face !== "goal-back" && face !== "start") $("#check-form").elements.face.value = face;
    });
    for (const select of $$("#check-form select[name=seat], #host-action-form select[name=for_seat]")) {
      select.addEventListener("change", () => { select.dataset.touched = "yes"; });
    }
    $("#check-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const form = event.currentTarget;
      const data = { ...cellFormData(form) };
      if (form.elements.seat.value !== "") data.seat = Number(form.elements.seat.value);
      const out = $("#check-result");
      try {
        const answer = await fetch(`/api/g/${gameId}/check`, { method: "POST", headers: headers(), body: JSON.stringify(data) })
          .then(async (r) => ({ ok: r.ok, json: await r.json() }));
        if (!answer.ok) { toast(answer.json.error || t("ui.error")); return; }
        const a = answer.json;
        const lines = [el("strong", { class: a.legal ? "good" : "bad", text: a.legal ? t("ui.legal") : t("ui.illegal") })];
        if (a.reasons.length) lines.push(el("ul", {}, ...a.reasons.map((r) => el("li", { text: r }))));
        if (a.turns_over.length) lines.push(el("p", { text: t("ui.turns-over", { cells: a.turns_over.map(([x, y]) => `(${x},${y})`).join(", ") }) }));
        fill(out, lines);
      } catch (err) {
        toast(t("ui.error"));
      }
    });
    if (viewKind !== "host") return;
    $("#start-round").addEventListener("click", () => api("start"));
    $("#exhausted").addEventListener("click", () => api("exhausted"));
    $("#turn-form").addEventListener("submit", (event) => {
      event.preventDefault();
      api("turn", { seat: Number(event.currentTarget.elements.seat.value) });
    });
    $("#cell-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const op = event.submitter ? event.submitter.dataset.op : "placed";
      const data = cellFormData(event.currentTarget);
      if (op === "placed") {
        const answer = await api("feed", { change: "placed", ...data });
        if (answer.legal === false) toast(`${t("ui.illegal")}: ${answer.reasons.join("; ")}`);
      } else if (op === "removed") {
        await api("feed", { change: "removed", x: data.x, y: data.y });
      } else if (op === "fix-set") {
        await api("correct", data);
      } else {
        await api("correct", { x: data.x, y: data.y });
      }
    });
    const actionForm = $("#host-action-form");
    actionForm.elements.card.addEventListener("change", () => syncActionFields(actionForm, view));
    actionForm.addEventListener("submit", async (event) => {
      event.preventDefault();
      const data = { ...actionBody(actionForm), for_seat: Number(actionForm.elements.for_seat.value) };
      const card = view.game.actions.find((a) => a.id === data.card);
      await api(card && card.effect === "map" ? "peek" : "action", data);
      toast(t("ui.done"), "good");
    });
    $("#host-pass").addEventListener("click", () => api("pass", { for_seat: Number(actionForm.elements.for_seat.value) }));
    $("#undo").addEventListener("click", () => api("undo"));
    $("#new-game-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const form = event.currentTarget;
      const chosen = form.elements.options.value.split(",").map((o) => o.trim()).filter(Boolean);
      const answer = await api("new-game", { edition: form.elements.edition.value, options: chosen });
      location.href = answer.table_url;
    });
    $("#host-link").addEventListener("click", async () => {
      const answer = await api("host-link");
      const out = $("#host-link-out");
      fill(out, [t("ui.link-once"), " ", el("code", { text: answer.url })]);
      out.hidden = false;
    });
  }

  // ------------------------------------------------------------------ start

  function render(v) {
    // A view for another viewer kind (an answer given before a reconnect) never overrides this screen's own.
    if (page === "player" && viewKind === "seat" && v.viewer.kind !== "seat") return;
    view = v;
    renderCommon(v);
    if (page === "player") renderPlayer(v);
    else renderTable(v);
  }

  // The camera's state (watching, looking for the maze, disconnected...) under its picture.
  // Asked for every few seconds: it changes with the camera, not with the game.
  const CAMERA_TONES = { watching: "good", reconnecting: "bad", failed: "bad", ended: "bad", stopped: "bad" };
  async function cameraStatus() {
    const figure = $("#camera");
    if (!figure) return;
    const line = $("#camera-status");
    try {
      const status = await fetch(figure.dataset.statusUrl, { credentials: "same-origin" }).then((r) => r.json());
      const label = t(`ui.camera-${status.state}`);
      // The camera's own sentence (in English) says why when something is wrong, and while
      // it watches, what makes its readings less sure (no colour, cards too small).
      const warnings = status.warnings || [];
      const why = [status.state === "watching" ? "" : status.message, ...warnings].filter(Boolean).join("; ");
      line.textContent = why ? `${label}: ${why}` : label;
      line.title = [status.message, ...warnings].filter(Boolean).join("; ");
      line.dataset.tone = status.state === "watching" && warnings.length ? "warn" : CAMERA_TONES[status.state] || "";
    } catch (err) {
      line.textContent = t("ui.conn-lost");
      line.dataset.tone = "bad";
    }
  }

  if (page === "player") bindPlayer();
  else bindTable();
  if (page !== "player" && $("#camera")) {
    cameraStatus();
    setInterval(cameraStatus, 3000);
  }
  render(view);
  start();
})();
