// MediaNode dashboard: a fleet view and a node view, speaking MQTT over WebSockets straight to the broker.
// The contract it reads and drives is topics.md; mqtt.min.js (MQTT.js, bundled at install time by
// deploy/build-dashboard.sh) provides the `mqtt` global.
'use strict';
(function () {
  const params = new URLSearchParams(location.search);
  const $ = (id) => document.getElementById(id);
  const decoder = new TextDecoder();
  // A reply slower than this is reported; playItem answers only once audio plays (up to 10 s).
  const replyTimeoutMs = { playItem: 15000 };
  const defaultReplyTimeoutMs = 5000;
  // The topic leaves below are written from the node's TopicLeaf and NodeEvent by `medianode docs`: edit those, not these lines.
  const leaves = Object.freeze({
    status: 'status',
    info: 'info',
    commands: 'commands',
    nowPlaying: 'nowplaying',
    nowPlayingArtwork: 'nowplaying/artwork',
    queue: 'queue',
    volume: 'volume',
    result: 'result',
    events: 'events',
    context: 'context',
    metrics: 'metrics',
    contentTree: 'content/tree',
    command: 'cmd',
    artwork: 'artwork',
  });
  const eventTypes = Object.freeze({
    trackStarted: 'trackStarted',
    trackEnded: 'trackEnded',
    error: 'error',
    catalogUpdated: 'catalogUpdated',
    connectivity: 'connectivity',
    downloadFinished: 'downloadFinished',
    downloadFailed: 'downloadFailed',
    announcementStarted: 'announcementStarted',
    announcementFinished: 'announcementFinished',
    audioFocus: 'audioFocus',
    outputLost: 'outputLost',
    outputRestored: 'outputRestored',
  });
  // End of the topic leaves written by `medianode docs`.

  const fleet = {
    pattern: params.get('prefix') || localStorage.getItem('medianode.pattern') || 'medianode/+',
    nodes: new Map(), // prefix -> { status, nowPlaying, metrics, row }
    health: new Map(), // prefix -> its last P/metrics, which may come before the node's status
    dirty: new Set(),
    frame: 0,
  };
  // The node on screen, or null in the fleet view.
  let view = null;
  const pending = new Map(); // request id -> { command, timer, resolve }
  const titles = new Map(); // identifier -> title, from every item the page has seen
  const session = Math.random().toString(36).slice(2, 8);
  let counter = 0;

  // MARK: - Connection

  function brokerURL() {
    if (params.get('broker')) return params.get('broker');
    if (location.protocol === 'http:' || location.protocol === 'https:') {
      return (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/mqtt';
    }
    return 'ws://127.0.0.1:9001/mqtt';
  }

  const url = brokerURL();
  const client = mqtt.connect(url, {
    protocolVersion: 5,
    clientId: 'medianode-dashboard-' + session,
    reconnectPeriod: 2000,
    connectTimeout: 5000,
  });

  function showConnection(text, kind) {
    const badge = $('connection');
    badge.textContent = text;
    badge.className = kind;
    const banner = $('banner');
    if (kind === 'lost') {
      banner.textContent = 'The broker at ' + url + ' is not reachable: ' + text +
        '. What the page shows may be out of date; commands cannot be sent until it is back.';
      banner.classList.add('shown');
    } else {
      banner.classList.remove('shown');
    }
  }

  client.on('connect', () => {
    // Marks for the first-render measurement (performance.getEntriesByType('mark') in the browser).
    if (!performance.getEntriesByName('mqtt-connected').length) performance.mark('mqtt-connected');
    showConnection('connected', 'connected');
    // A message that the connection is down is no longer true.
    const line = $('message');
    if (line.dataset.untilConnected) {
      line.textContent = '';
      line.className = '';
      line.dataset.untilConnected = '';
    }
    subscribeFleet();
    if (view) {
      subscribeNode(view.prefix);
      sendWaiting();
    }
  });
  client.on('reconnect', () => showConnection('reconnecting', 'lost'));
  client.on('offline', () => showConnection('offline', 'lost'));
  client.on('close', () => { if (!client.connected) showConnection('disconnected', 'lost'); });
  client.on('error', (error) => showConnection('error: ' + error.message, 'lost'));
  client.on('message', route);

  // MARK: - Topics

  /// Whether `topic` matches `filter`, whose `+` stands for one level (the fleet pattern has no `#`).
  function matches(filter, topic) {
    const f = filter.split('/'), t = topic.split('/');
    if (f.length !== t.length) return false;
    return f.every((level, i) => level === '+' || level === t[i]);
  }

  /// The leaves of each node the fleet view follows: its status, now playing and health (P/metrics).
  const fleetLeaves = [leaves.status, leaves.nowPlaying, leaves.metrics];

  function fleetFilters() { return fleetLeaves.map((leaf) => fleet.pattern + '/' + leaf); }

  function subscribeFleet() {
    client.subscribe(fleetFilters(), { qos: 1 });
  }

  function setPattern(pattern) {
    pattern = pattern.trim().replace(/\/+$/, '');
    if (!pattern || pattern.includes('#')) {
      report('error', 'A prefix pattern is a topic prefix; + matches one level, # is not allowed.');
      return;
    }
    if (client.connected) client.unsubscribe(fleetFilters());
    fleet.pattern = pattern;
    localStorage.setItem('medianode.pattern', pattern);
    fleet.nodes.clear();
    fleet.health.clear();
    $('fleet').tBodies[0].replaceChildren();
    renderFleetCount();
    if (client.connected) subscribeFleet();
  }

  function text(payload) { return decoder.decode(payload); }

  function json(payload) {
    if (payload.length === 0) return null;
    try { return JSON.parse(text(payload)); } catch (error) { return undefined; }
  }

  function route(topic, payload) {
    if (view) routeNode(topic, payload);
    const slash = topic.lastIndexOf('/');
    const prefix = topic.slice(0, slash), leaf = topic.slice(slash + 1);
    if (leaf === leaves.metrics && matches(fleet.pattern, prefix)) {
      // A late copy (a cluster member that lagged) never replaces a newer one: ISO 8601 UTC compares as text.
      const metrics = json(payload) || null, held = fleet.health.get(prefix);
      if (!metrics || !held || String(metrics.timestamp) >= String(held.timestamp)) fleet.health.set(prefix, metrics);
      // Health alone does not list a node: only its status or now playing does.
      if (fleet.nodes.has(prefix)) { fleet.dirty.add(prefix); scheduleFleet(); }
    } else if (fleetLeaves.includes(leaf) && matches(fleet.pattern, prefix)) {
      const node = fleet.nodes.get(prefix) || { status: null, nowPlaying: null, metrics: null, row: null };
      if (leaf === leaves.status) node.status = payload.length ? text(payload) : null;
      else node.nowPlaying = json(payload) || null;
      if (node.status === null && node.nowPlaying === null) {
        // Both cleared: the node is gone from this broker.
        if (node.row) node.row.remove();
        fleet.nodes.delete(prefix);
      } else {
        fleet.nodes.set(prefix, node);
        fleet.dirty.add(prefix);
      }
      scheduleFleet();
    }
  }

  // MARK: - Fleet view

  function scheduleFleet() {
    // A burst of retained messages (a hundred nodes at connect) becomes one render.
    if (!fleet.frame) fleet.frame = requestAnimationFrame(renderFleet);
  }

  function renderFleet() {
    fleet.frame = 0;
    const body = $('fleet').tBodies[0];
    const added = [];
    for (const prefix of fleet.dirty) {
      const node = fleet.nodes.get(prefix);
      if (!node) continue;
      if (!node.row) {
        node.row = document.createElement('tr');
        node.row.dataset.prefix = prefix;
        for (let i = 0; i < 7; i++) node.row.appendChild(document.createElement('td'));
        node.row.cells[0].textContent = prefix;
        node.row.addEventListener('click', () => { location.hash = '#node=' + encodeURIComponent(prefix); });
        added.push(node.row);
      }
      const status = node.status || 'unknown';
      const badge = document.createElement('span');
      badge.className = 'badge ' + status;
      badge.textContent = status;
      node.row.cells[1].replaceChildren(badge);
      const np = node.nowPlaying || {};
      node.row.cells[2].textContent = np.state || '';
      node.row.cells[3].textContent = [np.title, np.artist].filter(Boolean).join(' — ');
      node.row.dataset.status = status;
      const m = node.metrics = fleet.health.get(prefix) || null;
      node.row.cells[5].textContent = m && m.replyMs ? formatMs(m.replyMs.p99) : '';
      node.row.cells[6].textContent = m && m.playback ? String(m.playback.stalls) : '';
      renderHealth(node);
      renderConflict(node);
    }
    fleet.dirty.clear();
    if (added.length) {
      const rows = [...body.rows, ...added].sort((a, b) => a.dataset.prefix.localeCompare(b.dataset.prefix));
      body.replaceChildren(...rows);
    }
    renderFleetCount();
  }

  // MARK: - Health: how old each node's last P/metrics is

  /// Seconds since the node's last P/metrics (by its timestamp), or null when it sent none.
  function metricsAge(node, now) {
    const stamp = node.metrics && Date.parse(node.metrics.timestamp);
    return stamp ? Math.max(0, (now - stamp) / 1000) : null;
  }

  /// A node whose P/metrics is older than three of its intervals is presumed gone (topics.md "Health"):
  /// a clustered broker may keep its `online` retained after it died. The timestamp counts whole seconds,
  /// so a report can look up to a second older than it is: that second is allowed for.
  function isStale(node, now) {
    const age = metricsAge(node, now);
    const interval = node.metrics && node.metrics.intervalSeconds;
    return age !== null && interval > 0 && age > 3 * interval + 1;
  }

  function formatAge(seconds) {
    if (seconds === null) return '';
    if (seconds < 90) return Math.round(seconds) + ' s';
    if (seconds < 5400) return Math.round(seconds / 60) + ' min';
    return Math.round(seconds / 3600) + ' h';
  }

  function formatMs(ms) { return typeof ms === 'number' ? (ms < 10 ? ms.toFixed(1) : Math.round(ms)) + ' ms' : ''; }

  /// The age cell and the stale mark of one row; redrawn every second, as ages grow without messages.
  function renderHealth(node, now = Date.now()) {
    if (!node.row) return;
    node.row.cells[4].textContent = formatAge(metricsAge(node, now));
    const stale = isStale(node, now);
    if ((node.row.dataset.stale === 'true') === stale) return;
    node.row.dataset.stale = String(stale);
    const cell = node.row.cells[1];
    const mark = cell.querySelector('.badge.stale');
    if (stale && !mark) {
      const badge = document.createElement('span');
      badge.className = 'badge stale';
      badge.textContent = 'stale';
      badge.title = 'no P/metrics for more than three intervals: presumed gone';
      cell.appendChild(badge);
    } else if (!stale && mark) {
      mark.remove();
    }
  }

  /// Two nodes started with this node's id take the broker connection from each other (topics.md "Two nodes
  /// with one id"): marked as long as its P/metrics says so.
  function renderConflict(node) {
    const broker = node.metrics && node.metrics.broker;
    const cell = node.row.cells[1];
    let mark = cell.querySelector('.badge.conflict');
    if (!(broker && broker.clientIdConflict === true)) {
      if (mark) mark.remove();
      return;
    }
    if (!mark) {
      mark = document.createElement('span');
      mark.className = 'badge conflict';
      mark.textContent = 'id conflict';
      cell.appendChild(mark);
    }
    mark.title = 'two nodes use this node id: the broker closes one\'s connection whenever the other connects ('
      + broker.takeovers + ' takeovers so far); give each its own --node-id';
  }

  setInterval(() => {
    const now = Date.now();
    for (const node of fleet.nodes.values()) renderHealth(node, now);
    renderFleetCount();
  }, 1000);

  function renderFleetCount() {
    let online = 0, stale = 0;
    const now = Date.now();
    for (const node of fleet.nodes.values()) {
      if (node.status === 'online') online++;
      if (isStale(node, now)) stale++;
    }
    $('fleet-count').textContent = fleet.nodes.size
      ? `${fleet.nodes.size} ${fleet.nodes.size === 1 ? 'node' : 'nodes'}, ${online} online` + (stale ? `, ${stale} stale` : '') : '';
    $('fleet-empty').classList.toggle('hidden', fleet.nodes.size > 0);
  }

  // MARK: - Commands and replies

  /// Sends `command` to the node on screen; the reply (or its absence) is shown to the person. Made while
  /// the broker connection is not up (a page opened on a node link browses before it has connected), the
  /// command waits for it, as long as its reply would be waited for, and goes out once connected.
  function send(command, payload) {
    if (!view) return Promise.resolve(null);
    const prefix = view.prefix;
    const id = 'dash-' + session + '-' + (++counter);
    return new Promise((resolve) => {
      const timeout = replyTimeoutMs[command] || defaultReplyTimeoutMs;
      const request = { command, prefix, resolve, quiet: payload && payload.quiet, body: null, sent: false };
      request.timer = setTimeout(() => {
        pending.delete(id);
        if (request.sent) report('error', `${command}: no reply from ${prefix} within ${timeout / 1000} s`);
        else report('error', command + ': not sent, the broker connection is down', { untilConnected: true });
        resolve(null);
      }, timeout);
      request.body = Object.assign({}, payload, { id });
      delete request.body.quiet;
      pending.set(id, request);
      if (client.connected) publishRequest(request);
    });
  }

  function publishRequest(request) {
    request.sent = true;
    client.publish(request.prefix + '/' + leaves.command + '/' + request.command, JSON.stringify(request.body), { qos: 1 }, (error) => {
      if (error) report('error', request.command + ': not sent: ' + error.message);
    });
  }

  /// Sends what waited for the connection; called once the node's topics (its replies) are subscribed again.
  function sendWaiting() {
    for (const request of pending.values()) {
      if (!request.sent && view && request.prefix === view.prefix) publishRequest(request);
    }
  }

  /// Forgets the commands still waiting for the connection to the node leaving the screen: nobody waits
  /// for their replies any more.
  function dropWaiting(prefix) {
    for (const [id, request] of pending) {
      if (request.sent || request.prefix !== prefix) continue;
      clearTimeout(request.timer);
      pending.delete(id);
      request.resolve(null);
    }
  }

  function onReply(reply) {
    if (!reply || typeof reply.id !== 'string' || !pending.has(reply.id)) return;
    const request = pending.get(reply.id);
    pending.delete(reply.id);
    clearTimeout(request.timer);
    if (reply.status === 'success') {
      if (!request.quiet) report('ok', `${reply.command}: success`);
    } else {
      report('error', `${reply.command}: ${reply.status} (${reply.code})` + (reply.message ? ' — ' + reply.message : ''));
    }
    request.resolve(reply);
  }

  /// Shows `message`; with `untilConnected`, only as long as the broker connection is down.
  function report(kind, message, options) {
    const line = $('message');
    line.textContent = message;
    line.className = kind;
    line.dataset.untilConnected = options && options.untilConnected ? 'yes' : '';
    log(kind, message);
    if (!view && kind === 'error') {
      $('banner').textContent = message;
      $('banner').classList.add('shown');
    }
  }

  function log(kind, message) {
    const item = document.createElement('li');
    item.className = kind;
    item.textContent = new Date().toLocaleTimeString() + '  ' + message;
    const list = $('log');
    list.prepend(item);
    while (list.children.length > 200) list.lastChild.remove();
  }

  // MARK: - Node view

  function nodeTopics(prefix) {
    return [leaves.status, leaves.nowPlaying, leaves.commands, leaves.queue, leaves.volume, leaves.result, leaves.events,
      leaves.context].map((leaf) => prefix + '/' + leaf);
  }

  function subscribeNode(prefix) {
    client.subscribe(nodeTopics(prefix), { qos: 1 });
    if (view.artworkTopic) client.subscribe(view.artworkTopic, { qos: 1 });
    if (view.tree) client.subscribe(treeTopic(view.tree.path), { qos: 1 });
  }

  function openNode(prefix) {
    if (view && view.prefix === prefix) return;
    closeNode();
    view = {
      prefix, nowPlaying: null, commands: {}, volume: null, context: {}, queue: null,
      artworkTopic: null, artworkURL: null, tree: null, frame: 0,
      announcements: new Map(), announcement: null, chaptersOf: null, chapters: null,
    };
    $('fleet-view').classList.add('hidden');
    $('node-view').classList.remove('hidden');
    $('node-name').textContent = prefix;
    $('log').replaceChildren();
    $('message').textContent = '';
    $('search-results').replaceChildren();
    $('search-total').textContent = '';
    renderAnnouncement();
    renderNowPlaying();
    renderVolume();
    if (client.connected) subscribeNode(prefix);
    openPath([]);
  }

  function closeNode() {
    if (!view) return;
    const topics = nodeTopics(view.prefix);
    if (view.artworkTopic) topics.push(view.artworkTopic);
    if (view.tree) topics.push(treeTopic(view.tree.path));
    // The fleet subscription still wants the node's status and now playing.
    if (client.connected) {
      client.unsubscribe(topics.filter((t) => !fleetFilters().some((filter) => matches(filter, t))));
    }
    if (view.artworkURL) URL.revokeObjectURL(view.artworkURL);
    cancelAnimationFrame(view.frame);
    dropWaiting(view.prefix);
    view = null;
    $('node-view').classList.add('hidden');
    $('fleet-view').classList.remove('hidden');
  }

  function routeNode(topic, payload) {
    if (topic === view.artworkTopic) return showArtwork(payload);
    if (!topic.startsWith(view.prefix + '/')) return;
    const leaf = topic.slice(view.prefix.length + 1);
    switch (leaf) {
      case leaves.status: {
        const badge = $('node-status');
        const status = payload.length ? text(payload) : 'unknown';
        badge.textContent = status;
        badge.className = 'badge ' + status;
        break;
      }
      case leaves.nowPlaying: view.nowPlaying = json(payload) || { state: 'stopped' }; renderNowPlaying(); break;
      case leaves.commands: view.commands = json(payload) || {}; renderCommands(); break;
      case leaves.volume: view.volume = json(payload) || null; renderVolume(); break;
      case leaves.queue: view.queue = json(payload) || null; renderQueue(); break;
      case leaves.context: view.context = json(payload) || {}; renderLimits(); break;
      case leaves.result: onReply(json(payload)); break;
      case leaves.events: {
        const event = json(payload);
        if (event && event.type) {
          const announced = event.type === eventTypes.announcementStarted || event.type === eventTypes.announcementFinished;
          const detail = announced ? [event.reason, event.message].filter(Boolean).join(': ')
            : event.message || event.kind || event.identifier || '';
          log(event.type === eventTypes.error || event.type === eventTypes.downloadFailed || event.reason === 'failed' ? 'error' : 'event',
            'event ' + event.type + (detail ? ': ' + detail : ''));
          if (announced) onAnnouncementEvent(event);
        }
        break;
      }
      default:
        if (view.tree && topic === treeTopic(view.tree.path)) {
          const node = json(payload);
          if (node) showTreeNode(node);
        }
    }
  }

  // MARK: - Now playing

  function formatTime(seconds) {
    if (!isFinite(seconds) || seconds < 0) return '';
    seconds = Math.floor(seconds);
    const h = Math.floor(seconds / 3600), m = Math.floor(seconds / 60) % 60, s = seconds % 60;
    return (h ? h + ':' + String(m).padStart(2, '0') : m) + ':' + String(s).padStart(2, '0');
  }

  function position(np) {
    const elapsed = np.elapsedPlaybackTime || 0;
    const rate = np.playbackRate || 0;
    let now = elapsed;
    if (np.state === 'playing' && rate && np.timestamp) now = elapsed + (Date.now() / 1000 - np.timestamp) * rate;
    if (np.playbackDuration) now = Math.min(now, np.playbackDuration);
    return Math.max(0, now);
  }

  /// Now playing's sleep timer as a line: when the music pauses, and over how long it fades.
  function sleepTimerText(timer) {
    if (!timer) return '';
    const fade = ' (fading over ' + timer.fadeOut + ' s)';
    if (timer.endOfItem) return 'Sleep timer: pauses at the end of this item' + fade;
    const at = new Date(timer.endsAt * 1000);
    return 'Sleep timer: pauses at ' + at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) + fade;
  }

  function renderNowPlaying() {
    const np = view.nowPlaying || { state: 'stopped' };
    $('np-title').textContent = np.title || (np.state === 'stopped' ? 'Nothing playing' : 'Untitled');
    $('np-subtitle').textContent = [np.artist, np.albumTitle].filter(Boolean).join(' — ');
    $('np-state').textContent = np.state;
    $('np-sleep').textContent = sleepTimerText(np.sleepTimer);
    if (np.identifier && np.title) titles.set(np.identifier, np.title);
    const playing = np.state === 'playing';
    const toggle = $('btn-playpause');
    toggle.dataset.command = playing ? 'pause' : 'play';
    toggle.textContent = playing ? 'Pause' : 'Play';
    if (np.repeatMode) $('repeat').value = np.repeatMode;
    if (np.shuffleMode) $('shuffle').value = np.shuffleMode;
    const artworkTopic = np.artwork && np.artwork.topic ? np.artwork.topic : null;
    if (artworkTopic !== view.artworkTopic) {
      if (view.artworkTopic && client.connected) client.unsubscribe(view.artworkTopic);
      view.artworkTopic = artworkTopic;
      if (!artworkTopic) showArtwork(new Uint8Array(0));
      else if (client.connected) client.subscribe(artworkTopic, { qos: 1 });
    }
    renderCommands();
    renderQueue();
    renderChapters();
    // The bar moves on its own between messages: the node publishes on changes, never on a clock tick.
    cancelAnimationFrame(view.frame);
    tick();
  }

  function tick() {
    if (!view) return;
    const np = view.nowPlaying || {};
    const now = position(np);
    const duration = np.playbackDuration;
    $('np-bar').style.width = duration ? (100 * now / duration).toFixed(2) + '%' : (np.isLiveStream ? '100%' : '0');
    $('np-elapsed').textContent = np.state && np.state !== 'stopped' ? formatTime(now) : '';
    $('np-duration').textContent = np.isLiveStream ? 'live' : formatTime(duration);
    if (np.state === 'playing' && np.playbackRate) view.frame = requestAnimationFrame(tick);
  }

  function showArtwork(payload) {
    const image = $('np-artwork');
    if (view.artworkURL) URL.revokeObjectURL(view.artworkURL);
    view.artworkURL = null;
    if (!payload.length) { image.removeAttribute('src'); return; }
    const type = (view.nowPlaying && view.nowPlaying.artwork && view.nowPlaying.artwork.mimeType) || 'image/jpeg';
    view.artworkURL = URL.createObjectURL(new Blob([payload], { type }));
    image.src = view.artworkURL;
  }

  function renderCommands() {
    // A command the node does not list (yet) stays usable: its refusal is shown when it answers.
    for (const button of document.querySelectorAll('#node-view .controls button[data-command]')) {
      const entry = view.commands[button.dataset.command];
      button.disabled = entry ? entry.enabled === false : false;
    }
    const skip = (name, sign) => {
      const entry = view.commands[name];
      const interval = entry && entry.preferredIntervals && entry.preferredIntervals[0];
      const button = document.querySelector(`button[data-command="${name}"]`);
      if (interval) button.textContent = sign + interval + ' s';
    };
    skip('skipBackward', '-');
    skip('skipForward', '+');
    const repeat = view.commands.changeRepeatMode, shuffle = view.commands.changeShuffleMode;
    if (repeat && repeat.currentRepeatType) $('repeat').value = repeat.currentRepeatType;
    if (shuffle && shuffle.currentShuffleType) $('shuffle').value = shuffle.currentShuffleType;
    $('repeat').disabled = repeat ? repeat.enabled === false : false;
    $('shuffle').disabled = shuffle ? shuffle.enabled === false : false;
    const volume = view.commands.changeVolume;
    if (volume && typeof volume.volume === 'number' && !view.volume) renderVolume(volume.volume);
    renderAnnounceBox();
    if (view.chapters) renderChapterList();
    renderCommandList();
  }

  /// Every command the node lists on P/commands, whatever this page knows of it: a new command of the node
  /// is here the moment the node lists it, disabled while the node shows it so.
  function renderCommandList() {
    const select = $('command-name');
    const names = Object.keys(view.commands).sort();
    const chosen = select.value;
    select.replaceChildren(...names.map((name) => {
      const option = document.createElement('option');
      option.value = name;
      option.textContent = view.commands[name].enabled === false ? name + ' (disabled)' : name;
      return option;
    }));
    if (names.includes(chosen)) select.value = chosen;
    $('commands-count').textContent = names.length ? '(' + names.length + ')' : '';
  }

  /// Sends the chosen command with the payload typed; the reply shows as every command's does.
  function sendChosenCommand() {
    const name = $('command-name').value;
    if (!name) return;
    const text = $('command-payload').value.trim();
    let payload = {};
    if (text) {
      try {
        payload = JSON.parse(text);
      } catch (error) {
        report('error', name + ': the payload is not JSON: ' + error.message);
        return;
      }
      if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
        report('error', name + ': the payload must be a JSON object');
        return;
      }
    }
    send(name, payload);
  }

  function renderVolume(fallback) {
    const volume = view.volume && typeof view.volume.volume === 'number' ? view.volume.volume : fallback;
    const slider = $('volume');
    if (typeof volume === 'number' && document.activeElement !== slider) slider.value = volume;
    $('volume-value').textContent = typeof volume === 'number' ? Math.round(volume * 100) + '%' : '';
    const muted = !!(view.volume && view.volume.isMuted);
    $('btn-mute').textContent = muted ? 'Unmute' : 'Mute';
  }

  // MARK: - Announcements

  /// What the announce box sends for `value`: a URL the node plays as a clip, any other text spoken (in
  /// the language given, if any); with the music ducked or paused, and at the volume set, if set.
  function announcementFor(value) {
    const trimmed = value.trim();
    if (!trimmed) return null;
    const payload = /^(https?|file):\/\//.test(trimmed) ? { url: trimmed } : { text: trimmed };
    const lang = $('announce-lang').value.trim();
    if (payload.text && lang) payload.lang = lang;
    payload.mode = $('announce-mode').value;
    if ($('announce-volume-set').checked) payload.volume = Number($('announce-volume').value);
    return payload;
  }

  function renderAnnounceVolume() {
    const set = $('announce-volume-set').checked;
    $('announce-volume').disabled = !set;
    $('announce-volume-value').textContent = set ? Math.round(Number($('announce-volume').value) * 100) + '%' : "listener's";
  }

  /// The box as the node's P/commands allows it: announce enabled, and for text, textToSpeech. Like the
  /// other controls, it stays usable while the node does not list announce: a refusal is shown then.
  function renderAnnounceBox() {
    if (!view) return;
    const entry = view.commands.announce;
    const enabled = entry ? entry.enabled !== false : true;
    const payload = announcementFor($('announce-input').value);
    const button = $('announce-send');
    button.textContent = payload && payload.url ? 'Announce' : 'Speak';
    let why = '';
    if (!enabled) why = 'This node takes no announcements now';
    else if (payload && payload.text && entry && entry.textToSpeech === false) {
      why = 'This node has no text-to-speech: give an audio URL instead';
    }
    button.disabled = !payload || why !== '';
    button.title = why;
    $('announce-cancel').disabled = !enabled;
  }

  function announce() {
    const payload = announcementFor($('announce-input').value);
    if (!payload || !view) return;
    const prefix = view.prefix;
    const label = payload.url || '\u201c' + (payload.text.length > 60 ? payload.text.slice(0, 59) + '\u2026' : payload.text) + '\u201d';
    send('announce', payload).then((reply) => {
      // No reply at all is reported by send; a node left meanwhile is not shown.
      if (!reply || !view || view.prefix !== prefix) return;
      if (reply.status === 'success' && reply.data && typeof reply.data.announcementId === 'string') {
        const id = reply.data.announcementId;
        // Its announcementStarted may have come first.
        const known = view.announcements.get(id);
        remember(id, { label, state: known ? known.state : 'accepted', message: known ? known.message : '' });
        if ($('announce-input').value.trim() === (payload.url || payload.text)) $('announce-input').value = '';
        renderAnnounceBox();
      } else if (reply.status !== 'success') {
        view.announcement = {
          label, state: 'refused', message: `${reply.status} (${reply.code})` + (reply.message ? ': ' + reply.message : ''),
        };
      }
      renderAnnouncement();
    });
  }

  /// Keeps what is known of announcement `id` (the last 50) and makes it the one shown.
  function remember(id, entry) {
    view.announcements.delete(id);
    view.announcements.set(id, entry);
    if (view.announcements.size > 50) view.announcements.delete(view.announcements.keys().next().value);
    view.announcement = entry;
  }

  /// announcementStarted and announcementFinished on P/events, of this page's announcements or another's.
  function onAnnouncementEvent(event) {
    const id = String(event.announcementId || '');
    const known = view.announcements.get(id);
    const finished = event.type === eventTypes.announcementFinished;
    const state = !finished ? 'started' : ['cancelled', 'failed'].includes(event.reason) ? event.reason : 'finished';
    remember(id, {
      label: known ? known.label : 'Announcement ' + id.slice(0, 8),
      state, message: event.reason === 'failed' && event.message ? String(event.message) : '',
    });
    renderAnnouncement();
  }

  function renderAnnouncement() {
    const line = $('announce-state');
    const shown = view && view.announcement;
    line.dataset.state = shown ? shown.state : '';
    line.textContent = shown ? `${shown.label}: ${shown.state}` + (shown.message ? ' \u2014 ' + shown.message : '') : '';
  }

  // MARK: - Content tree

  function treeTopic(path) {
    return view.prefix + '/' + leaves.contentTree + path.map((i) => '/' + i).join('');
  }

  function limits() {
    const c = view.context || {};
    return c.contentLimitsEnforced ? { count: c.enforcedContentItemsCount, depth: c.enforcedContentTreeDepth } : null;
  }

  function renderLimits() {
    const l = limits();
    const banner = $('limits');
    banner.classList.toggle('hidden', !l);
    if (l) banner.textContent = `Driving: at most ${l.count} items per list and ${l.depth} levels.`;
    if (view.tree) renderTree();
  }

  /// Shows the tree node at `path`; `names` are the titles of the containers on the way, for the crumbs.
  function openPath(path, names) {
    if (!view) return;
    if (view.tree && client.connected) client.unsubscribe(treeTopic(view.tree.path));
    view.tree = { path, names: names || [], node: null, children: [] };
    renderCrumbs();
    $('tree').replaceChildren();
    if (client.connected) client.subscribe(treeTopic(path), { qos: 1 });
    browse(path, 0);
  }

  function browse(path, offset) {
    send('browse', { indexPath: path, offset, quiet: true }).then((reply) => {
      if (reply && reply.status === 'success' && reply.data && view && view.tree && sameP(view.tree.path, path)) {
        showTreeNode(reply.data);
      }
    });
  }

  function sameP(a, b) { return a.length === b.length && a.every((v, i) => v === b[i]); }

  function showTreeNode(node) {
    const tree = view.tree;
    if (!Array.isArray(node.indexPath) || !sameP(node.indexPath, tree.path)) return;
    const offset = node.offset || 0;
    if (offset > tree.children.length) return; // A page past the one shown: wait for the pages before it.
    // The browse reply and the retained topic usually say the same: redraw only for news.
    const known = tree.children.slice(offset, offset + node.children.length);
    if (tree.node && node.childCount === tree.node.childCount && JSON.stringify(known) === JSON.stringify(node.children)) return;
    tree.node = node;
    tree.children.splice(offset, node.children.length, ...node.children);
    if (node.item) tree.title = node.item.title;
    renderTree();
  }

  function renderCrumbs() {
    const crumbs = $('crumbs');
    crumbs.replaceChildren();
    const path = view.tree.path, names = view.tree.names;
    const root = document.createElement('a');
    root.textContent = 'Top';
    root.addEventListener('click', () => openPath([]));
    crumbs.appendChild(root);
    for (let depth = 1; depth <= path.length; depth++) {
      crumbs.appendChild(document.createTextNode(' › '));
      const crumb = document.createElement('a');
      crumb.textContent = names[depth - 1] || String(path[depth - 1]);
      crumb.addEventListener('click', () => openPath(path.slice(0, depth), names.slice(0, depth)));
      crumbs.appendChild(crumb);
    }
  }

  function renderTree() {
    const tree = view.tree;
    const l = limits();
    let children = tree.children;
    if (l && l.count) children = children.slice(0, l.count);
    const list = $('tree');
    list.replaceChildren(...children.map((item, i) => {
      const path = tree.path.concat([i]);
      const tooDeep = l && l.depth && path.length >= l.depth;
      return itemRow(item, {
        open: item.isContainer && !tooDeep ? () => openPath(path, tree.names.concat([item.title])) : null,
        play: item.isPlayable ? () => send('playItem', { indexPath: path }) : null,
        note: item.isContainer && tooDeep ? 'beyond the driving limit' : null,
      });
    }));
    const total = tree.node ? tree.node.childCount : 0;
    const more = $('tree-more');
    more.classList.toggle('hidden', !(tree.children.length < total && !(l && l.count && tree.children.length >= l.count)));
    more.onclick = () => browse(tree.path, tree.children.length);
  }

  function itemRow(item, actions) {
    if (item.identifier && item.title) titles.set(item.identifier, item.title);
    const row = document.createElement('li');
    row.dataset.identifier = item.identifier || '';
    const title = document.createElement('span');
    title.className = 'title';
    title.textContent = item.title || item.identifier;
    if (item.subtitle) {
      const sub = document.createElement('span');
      sub.className = 'muted';
      sub.textContent = ' — ' + item.subtitle;
      title.appendChild(sub);
    }
    const kind = document.createElement('span');
    kind.className = 'kind';
    kind.textContent = actions.note || (item.isContainer ? 'open ›' : item.isPlayable ? '▶ play' : '');
    row.append(title, kind);
    const action = actions.open || actions.play;
    if (action) {
      row.classList.add('clickable');
      row.dataset.action = actions.open ? 'open' : 'play';
      row.addEventListener('click', action);
    }
    if (actions.queue) {
      const add = document.createElement('button');
      add.textContent = '+ queue';
      add.title = 'Add to the end of the queue';
      add.addEventListener('click', (event) => { event.stopPropagation(); actions.queue(); });
      row.appendChild(add);
    }
    return row;
  }

  // MARK: - Chapters

  /// "Chapter 7 of 23 — The Crossing" under the title, and the item's chapters to jump in. The list comes
  /// from the item's contentItem answer, asked once per item; the current chapter from now playing, which
  /// the node publishes as each boundary is crossed.
  function renderChapters() {
    const np = view.nowPlaying || {};
    const has = typeof np.chapterNumber === 'number' && typeof np.chapterCount === 'number' && np.identifier;
    $('np-chapter').textContent = has
      ? `Chapter ${np.chapterNumber + 1} of ${np.chapterCount}` + (np.chapterTitle ? ' — ' + np.chapterTitle : '') : '';
    $('chapters-card').classList.toggle('hidden', !has);
    if (!has) { view.chaptersOf = null; view.chapters = null; return; }
    if (view.chaptersOf !== np.identifier) {
      const identifier = np.identifier;
      view.chaptersOf = identifier;
      view.chapters = null;
      send('contentItem', { identifier, quiet: true }).then((reply) => {
        if (!view || view.chaptersOf !== identifier) return;
        const data = reply && reply.status === 'success' ? reply.data : null;
        view.chapters = data && Array.isArray(data.chapters) ? data.chapters : [];
        renderChapterList();
      });
    }
    renderChapterList();
  }

  function renderChapterList() {
    const np = view.nowPlaying || {};
    const chapters = view.chapters || [];
    $('chapters-count').textContent = chapters.length ? String(chapters.length) : '';
    const enabled = !view.commands.skipToChapter || view.commands.skipToChapter.enabled !== false;
    $('chapters').replaceChildren(...chapters.map((chapter, index) => {
      const row = document.createElement('li');
      row.dataset.chapter = index;
      if (index === np.chapterNumber) row.classList.add('current');
      const title = document.createElement('span');
      title.className = 'title';
      title.textContent = (index + 1) + '. ' + (chapter.title || 'Chapter ' + (index + 1));
      const start = document.createElement('span');
      start.className = 'kind';
      start.textContent = formatTime(chapter.startTime) || '0:00';
      row.append(title, start);
      if (enabled) {
        row.classList.add('clickable');
        row.addEventListener('click', () => send('skipToChapter', { chapterNumber: index }));
      }
      return row;
    }));
  }

  // MARK: - Search and queue

  function search(query) {
    query = query.trim();
    send('search', { query, limit: 20 }).then((reply) => {
      const list = $('search-results');
      if (!reply || reply.status !== 'success') { list.replaceChildren(); $('search-total').textContent = ''; return; }
      const items = (reply.data && reply.data.items) || [];
      $('search-total').textContent = `${items.length} of ${reply.data ? reply.data.total : 0}`;
      list.replaceChildren(...items.map((item) => itemRow(item, {
        play: item.isPlayable ? () => send('playItem', { identifier: item.identifier }) : null,
        queue: item.isPlayable || item.isContainer ? () => send('addToQueue', { identifiers: [item.identifier] }) : null,
      })));
    });
  }

  function renderQueue() {
    const list = $('queue');
    const queue = view.queue;
    if (!queue || !Array.isArray(queue.identifiers)) { list.replaceChildren(); $('queue-count').textContent = ''; return; }
    const ids = queue.identifiers;
    $('queue-count').textContent = ids.length ? `${(queue.index ?? 0) + 1} of ${ids.length}` : 'empty';
    // A long queue shows a window around the current entry.
    const first = Math.max(0, (queue.index || 0) - 10), last = Math.min(ids.length, first + 100);
    const unknown = [];
    const rows = [];
    for (let i = first; i < last; i++) {
      const id = ids[i];
      const row = document.createElement('li');
      row.dataset.index = i;
      if (i === queue.index) row.classList.add('current');
      const title = document.createElement('span');
      title.className = 'title';
      title.textContent = (i + 1) + '. ' + (titles.get(id) || id);
      if (!titles.has(id)) unknown.push(id);
      const remove = document.createElement('button');
      remove.textContent = '✕';
      remove.title = 'Remove from the queue';
      remove.addEventListener('click', () => send('removeFromQueue', { index: i }));
      row.append(title, remove);
      rows.push(row);
    }
    list.replaceChildren(...rows);
    lookUpTitles(unknown.slice(0, 20));
  }

  const askedTitles = new Set();
  function lookUpTitles(ids) {
    for (const id of ids) {
      if (askedTitles.has(id)) continue;
      askedTitles.add(id);
      send('contentItem', { identifier: id, quiet: true }).then((reply) => {
        if (reply && reply.status === 'success' && reply.data && reply.data.title) {
          titles.set(id, reply.data.title);
          if (view) renderQueue();
        }
      });
    }
  }

  // MARK: - Wiring

  for (const button of document.querySelectorAll('#node-view .controls button[data-command]')) {
    if (button.id === 'btn-mute') continue;
    button.addEventListener('click', () => send(button.dataset.command, {}));
  }
  $('btn-mute').addEventListener('click', () => send('mute', { isMuted: !(view.volume && view.volume.isMuted) }));
  $('volume').addEventListener('change', (event) => send('changeVolume', { volume: Number(event.target.value) }));
  $('volume').addEventListener('input', (event) => {
    $('volume-value').textContent = Math.round(Number(event.target.value) * 100) + '%';
  });
  $('repeat').addEventListener('change', (event) => send('changeRepeatMode', { repeatType: event.target.value }));
  $('shuffle').addEventListener('change', (event) => send('changeShuffleMode', { shuffleType: event.target.value }));
  $('np-progress').addEventListener('click', (event) => {
    const np = view && view.nowPlaying;
    if (!np || !np.playbackDuration) return;
    const box = event.currentTarget.getBoundingClientRect();
    const seconds = np.playbackDuration * (event.clientX - box.left) / box.width;
    send('changePlaybackPosition', { positionTime: Math.max(0, Math.round(seconds * 10) / 10) });
  });
  $('search-form').addEventListener('submit', (event) => { event.preventDefault(); search($('search-query').value); });
  $('announce-form').addEventListener('submit', (event) => { event.preventDefault(); announce(); });
  $('announce-input').addEventListener('input', renderAnnounceBox);
  $('announce-lang').addEventListener('input', renderAnnounceBox);
  $('announce-volume').addEventListener('input', renderAnnounceVolume);
  $('announce-volume-set').addEventListener('change', renderAnnounceVolume);
  renderAnnounceVolume();
  $('announce-cancel').addEventListener('click', () => send('announce', { cancel: true }));
  $('command-form').addEventListener('submit', (event) => { event.preventDefault(); sendChosenCommand(); });
  $('pattern').value = fleet.pattern;
  $('pattern-form').addEventListener('submit', (event) => { event.preventDefault(); setPattern($('pattern').value); });

  function followHash() {
    const match = location.hash.match(/^#node=(.+)$/);
    if (match) openNode(decodeURIComponent(match[1]));
    else closeNode();
  }
  window.addEventListener('hashchange', followHash);
  followHash();
})();
