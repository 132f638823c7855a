/*
 * The live stream's words in the API document (docs/product.md "Live stage, Q&A, polls" is the
 * reference: where it and this file disagree, it wins).
 */

export const LIVE_STREAM_DESCRIPTION = `A Server-Sent Events stream (\`text/event-stream\`) of everything that happens in the
event from the moment you connect: lifecycle, tickets, stage, questions, polls, recording.
Public; a signature is accepted but not needed.

Each message is \`id:\` the stream sequence, \`event:\` the CloudEvent type (e.g.
\`townhall.stage.posted\`) and \`data:\` the CloudEvent JSON (the \`CloudEvent\` schema).
\`retry: 2000\` comes first and a \`: keep-alive\` comment every 15 s. Resume with
\`Last-Event-ID: <id>\` (or \`?lastEventId=\`): every missed message, then live, with no gap
and no duplicate. One resume replays at most the last \`LIVE_REPLAY_LIMIT\` (1,000) messages of the
stream; a client further behind first gets \`event: history.cut\` (data \`{ lastEventId,
resumedAfter, skipped }\`, whose \`id:\` moves your Last-Event-ID past the cut) and should re-read
the event's lists for what it missed. A client that stops reading is disconnected (it resumes with
its last id); the stream also ends when the gateway shuts down. One client address may hold at most
\`LIVE_STREAMS_PER_CLIENT\` (20) streams at once per gateway: more is 429 \`live.too_many_streams\`.`;

export const LIVE_STREAM_EXAMPLE = `retry: 2000

id: 42
event: townhall.stage.posted
data: {"specversion":"1.0","id":"...","source":"townhall/engagement","type":"townhall.stage.posted","time":"2030-01-01T18:05:00.000Z","subject":"<event id>","datacontenttype":"application/json","data":{"sequence":1,"body":"Welcome!"}}

: keep-alive
`;
