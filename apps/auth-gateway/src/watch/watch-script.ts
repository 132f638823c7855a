import { RESULTS_HIDDEN_TEXT } from './polls-section.js';
import { QUESTION_STATE_LABELS } from './questions-section.js';
import { HIDDEN_MESSAGE_TEXT } from './stage-section.js';
import { LIST_LIMIT, STAGE_LIMIT } from './watch-state.js';

/** Words the server's sections and the script share, put into the script as JSON literals. */
const SHARED = JSON.stringify({
  hiddenMessage: HIDDEN_MESSAGE_TEXT,
  resultsHidden: RESULTS_HIDDEN_TEXT,
  stateLabels: QUESTION_STATE_LABELS,
  stageLimit: STAGE_LIMIT,
  listLimit: LIST_LIMIT,
});

/**
 * `/assets/watch.js`: keeps a watch page current. The page is complete without it; with it, the
 * page follows `GET /events/{id}/live` (EventSource) and changes in place.
 *
 * - No gap between the page and the stream: the page carries the live stream's position from
 *   before its reads (`lastEventId` in `<main data-watch>`), and the stream is opened with
 *   `?lastEventId=` there, so everything after the reads is replayed. A change both read and
 *   replayed is applied twice, which is harmless: every live message carries the whole resource
 *   after the change (a question with its upvotes, a poll with its counts), applied by id, in
 *   stream order, so the last one wins. A hidden message stays hidden (hiding is final).
 * - After a dropped connection EventSource reconnects by itself with Last-Event-ID; a connection
 *   refused outright (503 while a gateway restarts, 429) is retried here with backoff from the
 *   last id seen. `history.cut` (too far behind, history gone), a first connection without a
 *   position, and a block or unblock (whose questions leave or return) re-read the JSON lists;
 *   messages arriving meanwhile wait and are applied after the re-read.
 * - Event changes (`townhall.event.*`, `townhall.recording.published`) re-read this page and
 *   swap in its summary, recording, agenda and seats, so times and words stay the server's.
 *   Tickets re-read the event's counts (a projection kept by the events service, a little after
 *   the ticket: read twice).
 * - Text goes in as text (`textContent`, `append` of strings), never as HTML: what an agent
 *   wrote cannot become markup here either. Only the page's own sections, parsed from this
 *   server's escaped HTML by DOMParser (which runs no script), are swapped in as elements.
 *
 * Plain browser JavaScript in a string, like /docs/signing.js: the build compiles only
 * TypeScript, and the page's CSP (`script-src 'self'`) wants a file from this server.
 * The e2e test runs it in Chromium (test/e2e/watch.e2e-spec.ts).
 */
export const WATCH_SCRIPT = String.raw`(function () {
  'use strict';
  var SHARED = ${SHARED};
  var main = document.getElementById('main');
  if (!main || !main.dataset.watch || typeof EventSource !== 'function') return;
  var config = JSON.parse(main.dataset.watch);
  var base = '/events/' + encodeURIComponent(config.eventId);
  var labels = config.labels || {};
  var statusLine = document.getElementById('live-status');
  var clockFormat = new Intl.DateTimeFormat('en-GB', {
    timeZone: config.timezone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  });
  var blockedAuthors = new Set();

  function say(text) {
    if (statusLine && statusLine.textContent !== text) statusLine.textContent = text;
  }

  // ---- Building elements: text is always text ----

  function el(tag, attributes, children) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) {
      var value = attributes[name];
      if (value !== undefined && value !== null && value !== false) node.setAttribute(name, String(value));
    });
    (children || []).forEach(function (child) {
      if (child === undefined || child === null || child === false) return;
      node.append(typeof child === 'string' ? child : child instanceof Node ? child : String(child));
    });
    return node;
  }

  function clock(instant) {
    return clockFormat.format(new Date(instant));
  }

  function shortId(id) {
    return id.length > 12 ? id.slice(0, 6) + '\u2026' + id.slice(-4) : id;
  }

  function authorLabel(id) {
    return Object.prototype.hasOwnProperty.call(labels, id) ? labels[id] : shortId(id);
  }

  function emptyItem(text) {
    return el('li', { class: 'empty' }, [text]);
  }

  function dropEmpty(list) {
    Array.prototype.slice.call(list.querySelectorAll(':scope > li.empty')).forEach(function (item) {
      item.remove();
    });
  }

  // ---- The stage (stage-section.ts) ----

  function isHidden(message) {
    return message.hidden === true || message.body === null;
  }

  function stageMessage(message) {
    var hidden = isHidden(message);
    var classes = ['message', message.kind === 'question' ? 'from-question' : '', hidden ? 'hidden' : '']
      .filter(Boolean)
      .join(' ');
    return el('li', { id: 'm-' + message.id, class: classes, 'data-sequence': message.sequence }, [
      el('p', { class: 'meta' }, [
        el('span', { class: 'author' }, [authorLabel(message.authorId)]),
        ' ',
        el('time', { datetime: message.createdAt }, [clock(message.createdAt)]),
        message.kind === 'question' ? el('span', { class: 'tag' }, [' \u00b7 question from the audience']) : null,
      ]),
      hidden
        ? el('p', { class: 'body removed' }, [SHARED.hiddenMessage])
        : el('p', { class: 'body' }, [message.body]),
    ]);
  }

  function putMessage(message) {
    var list = document.getElementById('stage-messages');
    if (!list || !message || typeof message.id !== 'string') return;
    var existing = document.getElementById('m-' + message.id);
    if (existing) {
      // Hiding is final: a replayed copy from before it must not bring the body back.
      if (existing.classList.contains('hidden') && !isHidden(message)) return;
      existing.replaceWith(stageMessage(message));
      return;
    }
    dropEmpty(list);
    var items = list.children;
    for (var i = items.length - 1; i >= 0; i--) {
      if (Number(items[i].dataset.sequence) < message.sequence) {
        items[i].after(stageMessage(message));
        return;
      }
    }
    list.prepend(stageMessage(message));
  }

  // ---- Questions (questions-section.ts) ----

  function upvotesText(upvotes) {
    return upvotes === 1 ? '1 upvote' : upvotes + ' upvotes';
  }

  function questionItem(question) {
    return el(
      'li',
      {
        id: 'q-' + question.id,
        class: 'question state-' + question.state,
        'data-upvotes': question.upvotes,
        'data-created': question.createdAt,
        'data-author': question.authorId,
      },
      [
        el('p', { class: 'body' }, [question.body]),
        el('p', { class: 'meta' }, [
          el('span', { class: 'upvotes' }, [upvotesText(question.upvotes)]),
          ' ',
          el('span', { class: 'state' }, [SHARED.stateLabels[question.state] || question.state]),
        ]),
      ],
    );
  }

  function questionList() {
    return document.getElementById('question-list');
  }

  function emptyQuestions(list) {
    if (!list.querySelector(':scope > li.question')) {
      dropEmpty(list);
      list.append(emptyItem('No questions yet.'));
    }
  }

  /** By upvotes, then age, as the service sorts them (sort=top). */
  function sortQuestions(list) {
    var items = Array.prototype.slice.call(list.querySelectorAll(':scope > li.question'));
    var sorted = items.slice().sort(function (a, b) {
      var byVotes = Number(b.dataset.upvotes) - Number(a.dataset.upvotes);
      if (byVotes !== 0) return byVotes;
      return a.dataset.created < b.dataset.created ? -1 : a.dataset.created > b.dataset.created ? 1 : 0;
    });
    if (sorted.some(function (item, i) { return item !== items[i]; }))
      sorted.forEach(function (item) {
        list.append(item);
      });
  }

  function putQuestion(question) {
    var list = questionList();
    if (!list || !question || typeof question.id !== 'string') return;
    // Pending and withdrawn questions never show; a blocked agent's leave public view.
    if (!Object.prototype.hasOwnProperty.call(SHARED.stateLabels, question.state) || blockedAuthors.has(question.authorId)) {
      removeQuestion(question.id);
      return;
    }
    var existing = document.getElementById('q-' + question.id);
    if (existing) existing.replaceWith(questionItem(question));
    else {
      dropEmpty(list);
      list.append(questionItem(question));
    }
    sortQuestions(list);
  }

  function removeQuestion(id) {
    var existing = document.getElementById('q-' + id);
    if (!existing) return;
    existing.remove();
    var list = questionList();
    if (list) emptyQuestions(list);
  }

  function removeQuestionsBy(agentId) {
    var list = questionList();
    if (!list) return;
    Array.prototype.slice.call(list.querySelectorAll(':scope > li.question')).forEach(function (item) {
      if (item.dataset.author === agentId) item.remove();
    });
    emptyQuestions(list);
  }

  // ---- Polls (polls-section.ts) ----

  function pollFacts(poll) {
    var facts = [poll.status === 'open' ? 'Open' : 'Closed'];
    if (poll.ballots !== null) facts.push(poll.ballots === 1 ? '1 ballot' : poll.ballots + ' ballots');
    if (poll.multiple) facts.push('multiple choice');
    if (poll.status === 'open' && poll.closesAt) facts.push('closes ' + clock(poll.closesAt));
    return facts.join(' \u00b7 ');
  }

  function votesText(votes, ballots) {
    var share = ballots === 0 ? 0 : Math.round((votes / ballots) * 100);
    return (votes === 1 ? '1 vote' : votes + ' votes') + ' (' + share + '%)';
  }

  function pollOption(option, ballots) {
    if (option.votes === null || ballots === null) return el('li', {}, [el('span', { class: 'label' }, [option.label])]);
    return el('li', {}, [
      el('span', { class: 'label' }, [option.label]),
      ' ',
      el('span', { class: 'votes' }, [votesText(option.votes, ballots)]),
      el('meter', { min: 0, max: Math.max(ballots, 1), value: option.votes, 'aria-hidden': 'true' }),
    ]);
  }

  function pollItem(poll) {
    return el('li', { id: 'p-' + poll.id, class: 'poll status-' + poll.status }, [
      el('h3', {}, [poll.question]),
      el('p', { class: 'meta' }, [pollFacts(poll)]),
      el(
        'ul',
        { class: 'options' },
        poll.options.map(function (option) {
          return pollOption(option, poll.ballots);
        }),
      ),
      poll.ballots === null ? el('p', { class: 'note' }, [SHARED.resultsHidden]) : null,
    ]);
  }

  function putPoll(poll) {
    var list = document.getElementById('poll-list');
    if (!list || !poll || typeof poll.id !== 'string' || !Array.isArray(poll.options)) return;
    var existing = document.getElementById('p-' + poll.id);
    if (existing) existing.replaceWith(pollItem(poll));
    else {
      dropEmpty(list);
      list.append(pollItem(poll));
    }
  }

  // ---- Re-reading the lists as JSON ----

  function getJson(path) {
    return fetch(path, { headers: { accept: 'application/json' } }).then(function (response) {
      if (!response.ok) throw new Error(path + ' answered ' + response.status);
      return response.json();
    });
  }

  function readStage(after, messages) {
    return getJson(base + '/stage?limit=100&after=' + after).then(function (page) {
      messages = messages.concat(page.items);
      var last = page.items[page.items.length - 1];
      if (page.nextCursor === null || !last || messages.length >= SHARED.stageLimit) return messages;
      return readStage(last.sequence, messages);
    });
  }

  function rebuild(list, items, build, none) {
    list.replaceChildren.apply(list, items.length ? items.map(build) : [emptyItem(none)]);
  }

  /** While the lists are re-read, live messages wait here, to be applied after (in order). */
  var waiting = null;

  function rereadLists() {
    if (waiting) return waiting.done;
    var queue = [];
    var done = Promise.all([
      readStage(0, []),
      getJson(base + '/questions?sort=top&limit=' + SHARED.listLimit),
      getJson(base + '/polls?limit=' + SHARED.listLimit),
    ])
      .then(function (lists) {
        var stage = document.getElementById('stage-messages');
        if (stage) rebuild(stage, lists[0], stageMessage, 'Nothing on stage yet.');
        var questions = questionList();
        if (questions)
          rebuild(
            questions,
            lists[1].items.filter(function (question) {
              return Object.prototype.hasOwnProperty.call(SHARED.stateLabels, question.state) && !blockedAuthors.has(question.authorId);
            }),
            questionItem,
            'No questions yet.',
          );
        var polls = document.getElementById('poll-list');
        if (polls) rebuild(polls, lists[2].items, pollItem, 'No polls yet.');
      })
      .catch(function () {
        say('Some updates could not be read: reload the page to see everything.');
      })
      .then(function () {
        waiting = null;
        queue.forEach(function (message) {
          apply(message.type, message.data);
        });
      });
    waiting = { queue: queue, done: done };
    return done;
  }

  // ---- Re-reading the page's event sections as HTML ----

  var SECTIONS = ['event-summary', 'recording', 'agenda', 'seats'];
  var sectionsBusy = false;
  var sectionsAgain = false;

  function swapSection(id, fresh) {
    var current = document.getElementById(id);
    var replacement = fresh.getElementById(id);
    if (!replacement) {
      if (current) current.remove();
      return;
    }
    var node = document.importNode(replacement, true);
    if (current) {
      current.replaceWith(node);
      return;
    }
    var before = replacement.previousElementSibling;
    var anchor = before && before.id ? document.getElementById(before.id) : null;
    if (anchor) anchor.after(node);
    else main.append(node);
  }

  function rereadSections() {
    if (sectionsBusy) {
      sectionsAgain = true;
      return;
    }
    sectionsBusy = true;
    sectionsAgain = false;
    fetch(base + '/watch', { headers: { accept: 'text/html' } })
      .then(function (response) {
        if (!response.ok) throw new Error('the page answered ' + response.status);
        return response.text();
      })
      .then(function (text) {
        var fresh = new DOMParser().parseFromString(text, 'text/html');
        SECTIONS.forEach(function (id) {
          swapSection(id, fresh);
        });
        if (fresh.title) document.title = fresh.title;
        var freshMain = fresh.getElementById('main');
        if (freshMain && freshMain.dataset.watch) labels = JSON.parse(freshMain.dataset.watch).labels || labels;
      })
      .catch(function () {
        say('Some updates could not be read: reload the page to see everything.');
      })
      .then(function () {
        sectionsBusy = false;
        if (sectionsAgain) rereadSections();
      });
  }

  // ---- Seats, from the event's counts ----

  function seatsOf(event) {
    var sold = (event.counts && event.counts.ticketsSold) || {};
    function soldOf(tier) {
      return Math.max(0, sold[tier] || 0);
    }
    var total = Object.keys(sold).reduce(function (sum, tier) {
      return sum + soldOf(tier);
    }, 0);
    var eventLeft = Math.max(0, event.capacity - total);
    if (event.ticketing.mode !== 'tiered') return { general: { capacity: event.capacity, left: eventLeft } };
    var seats = {};
    event.ticketing.tiers.forEach(function (tier) {
      seats[tier.id] = { capacity: tier.capacity, left: Math.min(eventLeft, Math.max(0, tier.capacity - soldOf(tier.id))) };
    });
    return seats;
  }

  function seatsText(capacity) {
    return ' of ' + capacity + (capacity === 1 ? ' seat' : ' seats') + ' left';
  }

  var seatTimers = [];

  function rereadSeats() {
    getJson(base)
      .then(function (event) {
        var seats = seatsOf(event);
        Array.prototype.slice.call(document.querySelectorAll('#seats li[data-tier]')).forEach(function (item) {
          var tier = seats[item.dataset.tier];
          var left = item.querySelector('.left');
          if (!tier || !left) return;
          left.textContent = String(tier.left);
          if (left.nextSibling && left.nextSibling.nodeType === Node.TEXT_NODE) left.nextSibling.textContent = seatsText(tier.capacity);
        });
      })
      .catch(function () {
        // The next ticket, or a reload, shows them.
      });
  }

  /** The counts follow tickets a moment later: read them soon, and once more a little later. */
  function seatsChanged() {
    seatTimers.forEach(clearTimeout);
    seatTimers = [setTimeout(rereadSeats, 300), setTimeout(rereadSeats, 2500)];
  }

  // ---- The live stream ----

  function apply(type, data) {
    if (waiting && /^townhall\.(stage|question|poll)\./.test(type)) {
      waiting.queue.push({ type: type, data: data });
      return;
    }
    if (type === 'townhall.stage.posted' || type === 'townhall.stage.hidden') putMessage(data);
    else if (type === 'townhall.question.withdrawn' || type === 'townhall.question.held') removeQuestion(data && data.id);
    else if (type.indexOf('townhall.question.') === 0) putQuestion(data);
    else if (type.indexOf('townhall.poll.') === 0) putPoll(data);
    else if (type === 'townhall.participant.blocked') {
      if (data && data.agentId) {
        blockedAuthors.add(data.agentId);
        removeQuestionsBy(data.agentId);
      }
      rereadLists();
    } else if (type === 'townhall.participant.unblocked') {
      if (data && data.agentId) blockedAuthors.delete(data.agentId);
      rereadLists();
    } else if (type.indexOf('townhall.ticket.') === 0) seatsChanged();
    else if (type.indexOf('townhall.event.') === 0 || type === 'townhall.recording.published') rereadSections();
  }

  var TYPES = [
    'townhall.stage.posted',
    'townhall.stage.hidden',
    'townhall.question.submitted',
    'townhall.question.approved',
    'townhall.question.upvoted',
    'townhall.question.promoted',
    'townhall.question.answered',
    'townhall.question.dismissed',
    'townhall.question.withdrawn',
    'townhall.question.held',
    'townhall.poll.opened',
    'townhall.poll.voted',
    'townhall.poll.closed',
    'townhall.participant.blocked',
    'townhall.participant.unblocked',
    'townhall.event.scheduled',
    'townhall.event.updated',
    'townhall.event.started',
    'townhall.event.ended',
    'townhall.event.cancelled',
    'townhall.ticket.issued',
    'townhall.ticket.cancelled',
    'townhall.recording.published',
  ];

  var lastId = config.lastEventId;
  var retryMs = 2000;
  var needsRead = lastId === null;

  function onMessage(message) {
    if (message.lastEventId) lastId = message.lastEventId;
    var cloudEvent;
    try {
      cloudEvent = JSON.parse(message.data);
    } catch (error) {
      return; // not a CloudEvent: nothing this page knows
    }
    if (cloudEvent && typeof cloudEvent === 'object') apply(message.type, cloudEvent.data);
  }

  function connect() {
    var source = new EventSource(base + '/live' + (lastId ? '?lastEventId=' + encodeURIComponent(lastId) : ''));
    TYPES.forEach(function (type) {
      source.addEventListener(type, onMessage);
    });
    source.addEventListener('history.cut', function (message) {
      if (message.lastEventId) lastId = message.lastEventId;
      rereadLists();
      rereadSections();
    });
    source.addEventListener('open', function () {
      retryMs = 2000;
      say('Following live.');
      if (needsRead) {
        // The page had no position to resume from: what happened since it was read is read again.
        needsRead = false;
        rereadLists();
        rereadSections();
      }
    });
    source.addEventListener('error', function () {
      if (source.readyState === EventSource.CLOSED) {
        // Refused (a 503 while a gateway restarts, 429): EventSource gives up, so this retries.
        say('Reconnecting\u2026');
        setTimeout(connect, retryMs);
        retryMs = Math.min(retryMs * 2, 30000);
      } else {
        say('Reconnecting\u2026'); // EventSource retries by itself, with Last-Event-ID
      }
    });
  }

  connect();
})();
`;
