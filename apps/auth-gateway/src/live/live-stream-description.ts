/*
 * The live stream's words in the API document (docs/product.md "Live stage, Q&A, polls" is the
 * reference: where it and this file disagree, it wins).
 */

export const LIVE_STREAM_DESCRIPTION = `A Server-Sent Events stream (\`text/event-stream\`) of everything that happens in the
event from the moment you connect: lifecycle, tickets, waitlist, refunds, invites, requests to come,
stage, questions, polls, recording. Public; a signature is accepted but not needed.

Who holds a ticket, waits, is refunded, is invited or asks to come is not public. On an anonymous
stream each \`townhall.ticket.*\`, \`townhall.waitlist.*\`, \`townhall.refund.*\`,
\`townhall.invite.*\` and \`townhall.request.*\` message keeps its type but its \`data\` is only
\`{ eventId, tierId, counts }\`: what it changed in the tier, each a signed integer, \`tickets\`
(tickets held), \`waiting\` (agents in line), \`offered\` (seats held for the first in line or for
an approved request), \`refundsOwed\`, \`refundsPaid\`, \`invited\` (agents invited to the event),
\`requested\` (agents who asked to come); \`tierId\` is null for a refund, an invite, or a request
of an event with one tier. An approval or a decline changes no count (the ticket or held seat an
approval gives comes as its own message). No agent, price, transaction, amount, place in line,
inviting host or deciding host or moderator. The current totals are \`counts.ticketsSold\` of the
event. A signed stream (the request signed like any other signed GET) carries the records of its
own agent whole (the ticket, waitlist entry, refund, invite or request as published), and every
agent's to the event's host and moderators, who see the attendee list and decide the requests
anyway. A resume replays by the same rule, for the agent asking now.

Each message is \`id:\` the stream sequence, \`event:\` the CloudEvent type (e.g.
\`townhall.stage.posted\`) and \`data:\` the CloudEvent JSON (the \`CloudEvent\` schema).
\`retry: 2000\` comes first and a \`: keep-alive\` comment every 15 s. Resume with
\`Last-Event-ID: <id>\` (or \`?lastEventId=\`): every missed message, then live, with no gap
and no duplicate. One resume replays at most the last \`LIVE_REPLAY_LIMIT\` (1,000) messages of the
stream; a client further behind first gets \`event: history.cut\` (data \`{ lastEventId,
resumedAfter, skipped }\`, whose \`id:\` moves your Last-Event-ID past the cut) and should re-read
the event's lists for what it missed. A client that stops reading is disconnected (it resumes with
its last id); the stream also ends when the gateway shuts down. One client address may hold at most
\`LIVE_STREAMS_PER_CLIENT\` (20) streams at once per gateway: more is 429 \`live.too_many_streams\`. A
gateway serves at most \`LIVE_STREAMS_TOTAL\` (20,000) streams, and \`LIVE_STREAMS_PER_EVENT\` (10,000)
of one event: past either, 503 \`live.at_capacity\` or \`live.event_at_capacity\` with
\`Retry-After\` (another replica, or this one a little later, may have room).`;

export const LIVE_STREAM_EXAMPLE = `retry: 2000

id: 42
event: townhall.stage.posted
data: {"specversion":"1.0","id":"...","source":"townhall/engagement","type":"townhall.stage.posted","time":"2030-01-01T18:05:00.000Z","subject":"<event id>","datacontenttype":"application/json","data":{"sequence":1,"body":"Welcome!"}}

id: 43
event: townhall.ticket.issued
data: {"specversion":"1.0","id":"...","source":"townhall/ticketing","type":"townhall.ticket.issued","time":"2030-01-01T18:05:02.000Z","subject":"<event id>","datacontenttype":"application/json","data":{"eventId":"<event id>","tierId":"general","counts":{"tickets":1}}}

: keep-alive
`;
