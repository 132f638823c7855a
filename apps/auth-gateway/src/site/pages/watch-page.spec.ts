import { readdirSync, readFileSync } from 'node:fs';
import { Script } from 'node:vm';
import type { EventView, PollView, QuestionView, RecordingView } from '@townhall/contracts';
import { anEventView } from '@townhall/testing';
import { browserProgram } from '../browser-programs.js';
import { EventClock } from './event-clock.js';
import { prefersHtml } from './html-preference.js';
import { indexPage } from './index-page.js';
import { html, renderDocument, renderFragment, safeHref } from './markup.js';
import {
  HIDDEN_MESSAGE_TEXT,
  liveStatusText,
  RESULTS_HIDDEN_TEXT,
  seatsOf,
  type StageMessageOnPage,
  type WatchConfig,
} from './page-text.js';
import { pollItem } from './polls-section.js';
import { RECORDING_UNPUBLISHED_TEXT } from './recording-section.js';
import { stageMessage } from './stage-section.js';
import { APPROVAL_REQUIRED_LABEL, INVITE_ONLY_LABEL } from './summary-section.js';
import { STATIC_STATUS_TEXT, watchPage } from './watch-page.js';
import type { IndexState, WatchState } from './watch-state.js';

const SCRIPT = '<script>alert(1)</script>';
const HOST = 'HostAgent5Yq2x8dWnH3vJk7mPa9bCd4eFg6hKjLmNp';
const SPEAKER = 'Speaker9Zr3y7cVmG2uHj6nQb8aXd5eWf4gTkLmNpQr';

/** The event of these pages: a live AMA in Berlin with a speaker and three tickets sold. */
function anEvent(fields: Partial<EventView> = {}): EventView {
  return anEventView({
    endsAt: '2027-03-04T19:30:00.000Z',
    timezone: 'Europe/Berlin',
    hostId: HOST,
    speakers: [SPEAKER],
    counts: { ticketsSold: { general: 3 }, questions: 0, polls: 0 },
    version: 3,
    ...fields,
  });
}

function aMessage(fields: Partial<StageMessageOnPage> = {}): StageMessageOnPage {
  return {
    id: 'm1',
    eventId: 'e1',
    sequence: 1,
    authorId: HOST,
    body: 'Welcome',
    hidden: false,
    kind: 'message',
    questionId: null,
    createdAt: '2027-03-04T18:01:00.000Z',
    ...fields,
  };
}

function aQuestion(fields: Partial<QuestionView> = {}): QuestionView {
  return {
    id: 'q1',
    eventId: 'e1',
    authorId: 'Asker',
    body: 'Why?',
    upvotes: 2,
    state: 'open',
    createdAt: '2027-03-04T18:03:00.000Z',
    ...fields,
  };
}

function aPoll(fields: Partial<PollView> = {}): PollView {
  return {
    id: 'p1',
    eventId: 'e1',
    openerId: HOST,
    question: 'Tabs or spaces?',
    options: [
      { id: 'a', label: 'Tabs', votes: 2 },
      { id: 'b', label: 'Spaces', votes: 1 },
    ],
    multiple: false,
    resultsVisibility: 'live',
    status: 'open',
    closesAt: null,
    ballots: 3,
    createdAt: '2027-03-04T18:04:00.000Z',
    closedAt: null,
    ...fields,
  };
}

function aState(fields: Partial<WatchState> = {}): WatchState {
  return {
    event: anEvent(),
    handles: new Map([[HOST, 'alice']]),
    stage: { messages: [aMessage()], more: false },
    questions: { items: [aQuestion()], more: false },
    polls: { items: [aPoll()], more: false },
    recording: undefined,
    position: 41,
    ...fields,
  };
}

/** What a person reads: the markup without its tags, blocks apart (entities left as they are). */
function textOf(markup: string): string {
  return markup
    .replace(/<\/?(p|li|h[1-6]|dt|dd|div|section|header|footer|main|nav|title|ol|ul)\b[^>]*>/g, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The `<main>` element's `data-watch`, as the browser script reads it. */
function configOf(page: string): WatchConfig {
  const attribute = /<main[^>]* data-watch="([^"]*)"/.exec(page)?.[1] ?? '';
  return JSON.parse(
    attribute
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&amp;/g, '&'),
  ) as WatchConfig;
}

describe('the watch page', () => {
  it('renders what agents wrote as text: no element, attribute or script comes from them', () => {
    const page = renderDocument(
      watchPage(
        aState({
          event: anEvent({
            title: SCRIPT,
            description: `<img src=x onerror=alert(1)>`,
            agenda: [{ title: `</li>${SCRIPT}` }],
            ticketing: {
              mode: 'tiered',
              asset: 'USDC',
              tiers: [{ id: 'vip', name: SCRIPT, price: '5', capacity: 3 }],
            },
          }),
          handles: new Map([[HOST, 'x"onmouseover="alert(1)']]),
          stage: { messages: [aMessage({ body: `${SCRIPT}<b>bold</b>` })], more: false },
          questions: { items: [aQuestion({ body: '"><svg onload=alert(1)>' })], more: false },
          polls: {
            items: [aPoll({ question: SCRIPT, options: [{ id: 'a', label: '<i>a</i>', votes: 1 }] })],
            more: false,
          },
        }),
      ),
    );
    // The page's only script element is its own file; every agent-written `<` is an entity.
    expect(page.match(/<script/g)).toHaveLength(1);
    expect(page).toMatch(/<script src="\/assets\/watch\.[0-9a-f]{12}\.js" defer><\/script>/);
    expect(page).not.toMatch(/<(img|svg|b|i)[\s>]/);
    expect(page).not.toMatch(/<[a-z][^>]*\son(error|load|mouseover)=/);
    expect(page).toContain('<h1>&lt;script>alert(1)&lt;/script></h1>');
    expect(page).toContain('<title>&lt;script>alert(1)&lt;/script> · Townhall</title>');
    // In an attribute, a quote cannot end it.
    expect(page).not.toContain('"onmouseover="');
    expect(configOf(page).labels[HOST]).toBe('@x"onmouseover="alert(1) (host)');
    expect(page.startsWith('<!doctype html>\n<html lang="en">')).toBe(true);
  });

  it('shows every section with its words, and hands the live position to the script', () => {
    const page = renderDocument(watchPage(aState()));
    const text = textOf(page);
    for (const words of [
      'Live',
      'Ask me anything',
      'Host @alice',
      'Scheduled start Thu, 4 Mar 2027, 19:00 CET',
      'Scheduled end Thu, 4 Mar 2027, 20:30 CET',
      'Time zone Europe/Berlin',
      '@alice (host) 19:01 Welcome',
      'Why? 2 upvotes Open',
      'Tabs or spaces? Open · 3 ballots',
      'Tabs 2 votes (67%)',
      'Spaces 1 vote (33%)',
      'No agenda.',
      'Free admission: 97 of 100 seats left',
      STATIC_STATUS_TEXT,
    ])
      expect(text).toContain(words);
    for (const landmark of [
      '<header class="site-header">',
      '<nav aria-label="Townhall">',
      '<main id="main"',
      '<footer',
    ])
      expect(page).toContain(landmark);
    expect(page).toContain('aria-live="polite"');
    expect(configOf(page)).toEqual({
      eventId: '6f1c3e2a-1b2c-4d5e-8f90-123456789abc',
      status: 'live',
      timezone: 'Europe/Berlin',
      lastEventId: '41',
      labels: { [HOST]: '@alice (host)', [SPEAKER]: 'Speake…NpQr (speaker)' },
    });
    expect(configOf(renderDocument(watchPage(aState({ position: undefined })))).lastEventId).toBeNull();
  });

  it('names every agent with a role by its @handle where it has a directory card', () => {
    const event = anEvent({ moderators: ['Moderator7Kd'], speakers: [SPEAKER] });
    const handles = new Map([
      [HOST, 'alice'],
      [SPEAKER, 'bob_speaks'],
    ]);
    const page = renderDocument(
      watchPage(
        aState({ event, handles, stage: { messages: [aMessage({ authorId: SPEAKER })], more: false } }),
      ),
    );
    expect(configOf(page).labels).toEqual({
      [HOST]: '@alice (host)',
      [SPEAKER]: '@bob_speaks (speaker)',
      Moderator7Kd: 'Moderator7Kd (moderator)',
    });
    expect(textOf(page)).toContain('@bob_speaks (speaker) 19:01 Welcome');
    // The status the script starts from; it says no "Following live." once the event is over.
    expect(liveStatusText('live')).toBe('Following live.');
    expect(liveStatusText('past')).toBe('This event has ended.');
    expect(liveStatusText('cancelled')).toBe('This event was cancelled.');
    expect(configOf(renderDocument(watchPage(aState({ event: anEvent({ status: 'past' }) })))).status).toBe(
      'past',
    );
  });

  it('says next to the status that an event is invite only, and nothing of the kind for an open one', () => {
    const summaryOf = (page: string) => /<header id="event-summary"[\s\S]*?<\/header>/.exec(page)?.[0] ?? '';
    const invite = summaryOf(renderDocument(watchPage(aState({ event: anEvent({ access: 'invite' }) }))));
    expect(textOf(invite)).toContain(`Live ${INVITE_ONLY_LABEL} Ask me anything`);
    expect(invite).toContain(`<span class="badge access-invite">${INVITE_ONLY_LABEL}</span>`);
    expect(invite).not.toContain(APPROVAL_REQUIRED_LABEL);
    const open = renderDocument(watchPage(aState({ event: anEvent({ access: 'open' }) })));
    expect(open).not.toContain(INVITE_ONLY_LABEL);
    expect(open).not.toContain(APPROVAL_REQUIRED_LABEL);
    expect(open).not.toContain('access-invite');
    expect(open).not.toContain('access-approval');
  });

  it('says next to the status that an event needs approval, as it says invite only', () => {
    const summaryOf = (page: string) => /<header id="event-summary"[\s\S]*?<\/header>/.exec(page)?.[0] ?? '';
    const approval = summaryOf(renderDocument(watchPage(aState({ event: anEvent({ access: 'approval' }) }))));
    expect(textOf(approval)).toContain(`Live ${APPROVAL_REQUIRED_LABEL} Ask me anything`);
    expect(approval).toContain(`<span class="badge access-approval">${APPROVAL_REQUIRED_LABEL}</span>`);
    expect(approval).not.toContain(INVITE_ONLY_LABEL);
  });

  it('shows a hidden message in its place, without its body, before and after the contract has `hidden`', () => {
    const clock = new EventClock('UTC');
    const labels = { [HOST]: '@alice (host)' };
    for (const hidden of [
      aMessage({ body: null, hidden: true }),
      aMessage({ body: null }), // body null alone means hidden
      aMessage({ body: 'the words', hidden: true }),
    ]) {
      const item = renderFragment(stageMessage(hidden, labels, clock));
      expect(textOf(item)).toBe(`@alice (host) 18:01 ${HIDDEN_MESSAGE_TEXT}`);
      expect(item).toContain('class="message hidden"');
      expect(item).toContain('data-sequence="1"');
    }
    // A message from before moderation existed (no `hidden` at all) shows its body.
    const { hidden: _none, ...old } = aMessage({ body: 'still here' });
    expect(textOf(renderFragment(stageMessage(old, labels, clock)))).toContain('still here');
    const promoted = renderFragment(
      stageMessage(aMessage({ kind: 'question', authorId: 'Someone' }), labels, clock),
    );
    expect(textOf(promoted)).toBe('Someone 18:01 · question from the audience Welcome');
  });

  it('shows poll results only where the poll does: none while they are hidden until it closes', () => {
    const clock = new EventClock('UTC');
    const hidden = renderFragment(
      pollItem(
        aPoll({
          resultsVisibility: 'after_close',
          ballots: null,
          options: [
            { id: 'a', label: 'Tabs', votes: null },
            { id: 'b', label: 'Spaces', votes: null },
          ],
          closesAt: '2027-03-04T18:30:00.000Z',
        }),
        clock,
      ),
    );
    expect(textOf(hidden)).toBe(`Tabs or spaces? Open · closes 18:30 Tabs Spaces ${RESULTS_HIDDEN_TEXT}`);
    expect(hidden).not.toContain('<meter');
    const closed = renderFragment(
      pollItem(
        aPoll({ status: 'closed', multiple: true, ballots: 0, options: [{ id: 'a', label: 'A', votes: 0 }] }),
        clock,
      ),
    );
    expect(textOf(closed)).toBe('Tabs or spaces? Closed · 0 ballots · multiple choice A 0 votes (0%)');
  });

  it("formats times in the event's own zone, daylight saving included", () => {
    const berlin = new EventClock('Europe/Berlin');
    expect(berlin.dateTime('2027-03-04T18:00:00.000Z')).toBe('Thu, 4 Mar 2027, 19:00 CET');
    expect(berlin.dateTime('2027-07-01T18:00:00.000Z')).toBe('Thu, 1 Jul 2027, 20:00 CEST');
    expect(new EventClock('Asia/Kolkata').time('2027-03-04T18:00:00.000Z')).toBe('23:30');
    expect(new EventClock('America/New_York').dateTime('2027-03-05T02:00:00.000Z')).toBe(
      'Thu, 4 Mar 2027, 21:00 GMT-5',
    );
    expect(new EventClock('Pacific/Chatham').time('2027-03-04T18:00:00.000Z')).toBe('07:45');
    const unknown = new EventClock('Mars/Olympus_Mons');
    expect(unknown.zone).toBe('UTC');
    expect(unknown.time('2027-03-04T18:00:00.000Z')).toBe('18:00');
    // The agenda's times are the start plus each item's offset, in the zone.
    const page = textOf(
      renderDocument(
        watchPage(
          aState({
            event: anEvent({
              timezone: 'Asia/Tokyo',
              agenda: [
                { title: 'Intro', startOffsetMinutes: 0, durationMinutes: 15 },
                { title: 'Q&A', startOffsetMinutes: 75 },
              ],
            }),
          }),
        ),
      ),
    );
    expect(page).toContain('Scheduled start Fri, 5 Mar 2027, 03:00 GMT+9');
    expect(page).toContain('03:00–03:15 Intro 04:15 Q&amp;A');
  });

  it('says when the event started and ended once it has, and when it is scheduled to until then', () => {
    // Scheduled for 19:00 to 20:30 CET; the host started it at 18:56 and ended it at 20:12.
    const started = anEvent({ startedAt: '2027-03-04T17:56:00.000Z' });
    const live = renderDocument(watchPage(aState({ event: started })));
    expect(textOf(live)).toContain(
      'Started Thu, 4 Mar 2027, 18:56 CET Scheduled end Thu, 4 Mar 2027, 20:30 CET',
    );
    expect(live).toContain('<time datetime="2027-03-04T17:56:00.000Z">');
    expect(textOf(live)).not.toContain('19:00');
    const ended = anEvent({ ...started, status: 'past', endedAt: '2027-03-04T19:12:00.000Z' });
    expect(textOf(renderDocument(watchPage(aState({ event: ended }))))).toContain(
      'Started Thu, 4 Mar 2027, 18:56 CET Ended Thu, 4 Mar 2027, 20:12 CET',
    );
    // Cancelled before it started: only the plan, said to be one.
    expect(textOf(renderDocument(watchPage(aState({ event: anEvent({ status: 'cancelled' }) }))))).toContain(
      'Scheduled start Thu, 4 Mar 2027, 19:00 CET Scheduled end Thu, 4 Mar 2027, 20:30 CET',
    );
  });

  it("shows each tier's price in its asset's units, exactly", () => {
    // Past 2^64 atomic units, and a fraction of one USDC.
    const prices = { vip: '18446744073709551617', standard: '2500' };
    const tiers = Object.entries(prices).map(([id, price]) => ({
      id,
      name: id.toUpperCase(),
      price,
      capacity: 4,
    }));
    const counts = { ticketsSold: {}, questions: 0, polls: 0 };
    const tiered = anEvent({ ticketing: { mode: 'tiered', asset: 'USDC', tiers }, counts });
    const text = textOf(renderDocument(watchPage(aState({ event: tiered }))));
    expect(text).toContain('VIP (18446744073709.551617 USDC): 4 of 4 seats left');
    expect(text).toContain('STANDARD (0.0025 USDC): 4 of 4 seats left');
    const single = anEvent({ ticketing: { mode: 'single', asset: 'USDC', price: '1000000' } });
    expect(textOf(renderDocument(watchPage(aState({ event: single }))))).toContain(
      'Admission (1 USDC): 97 of 100 seats left',
    );
    // An asset whose decimals Townhall does not know: its atomic units, said to be so.
    const other = anEvent({ ticketing: { mode: 'single', asset: 'EURC', price: '2500' } });
    expect(textOf(renderDocument(watchPage(aState({ event: other }))))).toContain(
      'Admission (2500 atomic units of EURC): 97 of 100 seats left',
    );
  });

  it('counts seats left per tier, within the event capacity', () => {
    const tiered = anEvent({
      capacity: 10,
      ticketing: {
        mode: 'tiered',
        asset: 'USDC',
        tiers: [
          { id: 'vip', name: 'VIP', price: '100', capacity: 4 },
          { id: 'standard', name: 'Standard', price: '10', capacity: 8 },
        ],
      },
      counts: { ticketsSold: { vip: 1, standard: 6 }, questions: 0, polls: 0 },
    });
    expect(seatsOf(tiered)).toEqual([
      { id: 'vip', name: 'VIP', capacity: 4, left: 3 },
      { id: 'standard', name: 'Standard', capacity: 8, left: 2 },
    ]);
    const soldOut = anEvent({ capacity: 2, counts: { ticketsSold: { general: 5 }, questions: 0, polls: 0 } });
    expect(seatsOf(soldOut)).toEqual([{ id: 'general', name: 'Free admission', capacity: 2, left: 0 }]);
    for (const status of ['past', 'cancelled'] as const)
      expect(renderDocument(watchPage(aState({ event: anEvent({ status }) })))).not.toContain('id="seats"');
  });

  it('does not show a hidden tier (sold only with a code), whose tickets still take seats of the event', () => {
    const tiers = [
      { id: 'standard', name: 'Standard', price: '10', capacity: 8 },
      { id: 'crew', name: 'Backstage crew', price: '1', capacity: 4, hidden: true },
    ];
    const withHidden = anEvent({
      capacity: 10,
      ticketing: { mode: 'tiered', asset: 'USDC', tiers },
      counts: { ticketsSold: { standard: 5, crew: 3 }, questions: 0, polls: 0 },
    });
    expect(seatsOf(withHidden)).toEqual([{ id: 'standard', name: 'Standard', capacity: 8, left: 2 }]);
    const page = renderDocument(watchPage(aState({ event: withHidden })));
    expect(page).toContain('data-tier="standard"');
    expect(page).not.toContain('crew');
    expect(page).not.toContain('Backstage');
    // Every tier hidden: no seats to show.
    const allHidden = anEvent({
      ticketing: { mode: 'tiered', asset: 'USDC', tiers: [tiers[1]!] },
    });
    expect(seatsOf(allHidden)).toEqual([]);
    expect(renderDocument(watchPage(aState({ event: allHidden })))).not.toContain('id="seats"');
  });

  it('after the end shows the published recording, or that it is not published yet', () => {
    const past = anEvent({ status: 'past' });
    const unpublished = textOf(renderDocument(watchPage(aState({ event: past, recording: 'unpublished' }))));
    expect(unpublished).toContain(`Recording ${RECORDING_UNPUBLISHED_TEXT}`);
    const recording = {
      eventId: past.id,
      published: true,
      publishedAt: '2027-03-04T20:00:00.000Z',
      mediaUrl: 'https://media.example/ama.mp4',
      summary: 'We talked.',
      transcript: {
        agenda: [],
        stage: [],
        questions: [],
        polls: [],
        attendance: { ticketsIssued: 0, attendees: [] },
      },
      nextCursor: null,
    } as RecordingView;
    const published = renderDocument(watchPage(aState({ event: past, recording })));
    expect(textOf(published)).toContain('Published Thu, 4 Mar 2027, 21:00 CET. We talked.');
    expect(published).toContain(
      '<a href="https://media.example/ama.mp4" rel="noopener noreferrer nofollow">',
    );
    const scripted = renderDocument(
      watchPage(aState({ event: past, recording: { ...recording, mediaUrl: 'javascript:alert(1)' } })),
    );
    expect(scripted).not.toContain('javascript:');
    expect(safeHref('JavaScript:alert(1)')).toBeUndefined();
    expect(safeHref('not a url')).toBeUndefined();
  });
});

describe('the index page', () => {
  const none = { items: [], more: false };

  it('lists live and upcoming events, each linking to its watch page', () => {
    const page = renderDocument(
      indexPage({
        live: { items: [anEvent({ id: 'a/b', title: SCRIPT })], more: false },
        upcoming: none,
        past: none,
      }),
    );
    expect(page).toContain('<a href="/events/a%2Fb/watch">&lt;script>alert(1)&lt;/script></a>');
    expect(textOf(page)).toContain('Upcoming Nothing is scheduled.');
    expect(textOf(page)).toContain('Recently ended Nothing has ended in the last 7 days.');
    expect(page).not.toContain('watch.js'); // nothing live to follow on the index
  });

  it('says when each event starts, or started and ended, and what a ticket costs while one can be had', () => {
    const live = anEvent({
      id: 'l',
      title: 'Live one',
      startedAt: '2027-03-04T17:56:00.000Z',
      ticketing: { mode: 'single', asset: 'USDC', price: '2500' },
    });
    const tiers = [
      { id: 'vip', name: 'VIP', price: '5000000', capacity: 4 },
      { id: 'std', name: 'Standard', price: '1000', capacity: 8 },
      { id: 'crew', name: 'Crew', price: '1', capacity: 2, hidden: true },
    ];
    const upcoming = anEvent({
      id: 'u',
      title: 'Next one',
      status: 'scheduled',
      ticketing: { mode: 'tiered', asset: 'USDC', tiers },
    });
    const byCode = anEvent({
      id: 'c',
      title: 'Crew only',
      status: 'scheduled',
      ticketing: { mode: 'tiered', asset: 'USDC', tiers: [tiers[2]!] },
    });
    const ended = anEvent({
      id: 'p',
      title: 'Past one',
      status: 'past',
      startedAt: '2027-03-04T17:56:00.000Z',
      endedAt: '2027-03-04T19:12:00.000Z',
      ticketing: { mode: 'single', asset: 'USDC', price: '2500' },
    });
    const text = textOf(
      renderDocument(
        indexPage({
          live: { items: [live], more: false },
          upcoming: { items: [upcoming, byCode, anEvent({ id: 'f', title: 'Free one' })], more: false },
          past: { items: [ended], more: false },
        }),
      ),
    );
    expect(text).toContain('Live one Started Thu, 4 Mar 2027, 18:56 CET · 0.0025 USDC');
    expect(text).toContain('Next one Scheduled start Thu, 4 Mar 2027, 19:00 CET · from 0.001 USDC');
    expect(text).toContain('Crew only Scheduled start Thu, 4 Mar 2027, 19:00 CET · By code only');
    expect(text).toContain('Free one Scheduled start Thu, 4 Mar 2027, 19:00 CET · Free');
    // After the end, no price: when it ran.
    expect(text).toContain('Past one Started Thu, 4 Mar 2027, 18:56 CET · Ended Thu, 4 Mar 2027, 20:12 CET');
    expect(text).not.toContain(
      'Past one Started Thu, 4 Mar 2027, 18:56 CET · Ended Thu, 4 Mar 2027, 20:12 CET ·',
    );
  });

  it('lists recent past events, the newest first, with a link to each published recording', () => {
    const ended = anEvent({ id: 'e1', title: 'Ended', status: 'past' });
    const recorded = anEvent({
      id: 'e2',
      title: 'Recorded',
      status: 'past',
      recordingPublishedAt: '2027-03-04T20:30:00.000Z',
    });
    const state: IndexState = {
      live: none,
      upcoming: none,
      past: {
        items: [recorded, ended],
        more: true,
      },
    };
    const page = renderDocument(indexPage(state));
    expect(page).toContain('<a href="/events/e2/watch#recording">Recording</a>');
    expect(page).not.toContain('/events/e1/watch#recording');
    expect(textOf(page)).toContain(
      'Recently ended Recorded Scheduled start Thu, 4 Mar 2027, 19:00 CET · Recording Ended',
    );
    expect(textOf(page)).toContain('The most recent 2 by start time');
  });
});

describe('markup', () => {
  it('has one root per template, and neither the pages nor their script ever write raw HTML', () => {
    expect(() => html`<p>one</p><p>two</p>`).toThrow('exactly one root');
    const sources = [
      ...readdirSync(new URL('.', import.meta.url)),
      ...readdirSync(new URL('../browser/', import.meta.url), { recursive: true }).map(
        (name) => `../browser/${name}`,
      ),
    ].filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts'));
    expect(sources.length).toBeGreaterThan(15);
    for (const name of sources) {
      const source = readFileSync(new URL(name, import.meta.url), 'utf8');
      expect([
        name,
        /dangerouslySetInnerHTML|innerHTML|outerHTML|insertAdjacentHTML|document\.write/.test(source),
      ]).toEqual([name, false]);
    }
  });

  it('ships a browser script that parses, with the words of the page', () => {
    const script = browserProgram('watch');
    expect(() => new Script(script)).not.toThrow();
    expect(script).toContain(JSON.stringify(HIDDEN_MESSAGE_TEXT));
  });
});

describe('prefersHtml', () => {
  it('is true for browsers and false for API clients', () => {
    const chrome = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
    expect(prefersHtml(chrome)).toBe(true);
    expect(prefersHtml('text/html')).toBe(true);
    expect(prefersHtml('application/json, text/html;q=0.5')).toBe(false);
    for (const accept of [undefined, '', '*/*', 'application/json', 'text/html;q=0', 'text/*'])
      expect([accept, prefersHtml(accept)]).toEqual([accept, false]);
  });
});
