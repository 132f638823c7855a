import type { EventView } from '@townhall/contracts';
import { seatsLeftText, seatsOf, type WatchConfig } from '../../pages/page-text.js';

/** The page's sections about the event itself, swapped in whole from the page read again. */
const EVENT_SECTIONS = ['event-summary', 'recording', 'agenda', 'seats'];

/** The counts follow tickets a moment later (a projection of the events service): read them twice. */
const SEATS_READ_AFTER_MS = [300, 2_500];

/** A JSON read of a public route, as the page's own reads are. */
export async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`${path} answered ${response.status}`);
  return (await response.json()) as T;
}

/**
 * The event's sections, kept as the server renders them: on a change of the event (or its
 * recording) the page is read again and its summary, recording, agenda and seats swapped in, so
 * times and words stay the server's. Only the page's own sections, parsed from this server's
 * escaped HTML by DOMParser (which runs no script), are taken in as elements.
 */
export class EventSections {
  private busy = false;
  private again = false;
  private seatTimers: number[] = [];

  constructor(
    private readonly main: HTMLElement,
    private readonly base: string,
    /** What the page read again says (its status, its labels); failures, as words for the person. */
    private readonly onRead: (config: WatchConfig) => void,
    private readonly onFailure: () => void,
  ) {}

  /** Reads the page again; while a read is under way, once more after it. */
  reread(): void {
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    this.again = false;
    void this.read()
      .catch(this.onFailure)
      .finally(() => {
        this.busy = false;
        if (this.again) this.reread();
      });
  }

  /** Tickets changed: the seats follow from the event's counts, read soon and once more a little later. */
  seatsChanged(): void {
    for (const timer of this.seatTimers) clearTimeout(timer);
    this.seatTimers = SEATS_READ_AFTER_MS.map((ms) => window.setTimeout(() => void this.readSeats(), ms));
  }

  private async read(): Promise<void> {
    const response = await fetch(`${this.base}/watch`, { headers: { accept: 'text/html' } });
    if (!response.ok) throw new Error(`the page answered ${response.status}`);
    const fresh = new DOMParser().parseFromString(await response.text(), 'text/html');
    for (const id of EVENT_SECTIONS) this.swap(id, fresh);
    if (fresh.title) document.title = fresh.title;
    const config = fresh.getElementById('main')?.dataset['watch'];
    if (config) this.onRead(JSON.parse(config) as WatchConfig);
  }

  private swap(id: string, fresh: Document): void {
    const current = document.getElementById(id);
    const replacement = fresh.getElementById(id);
    if (!replacement) {
      current?.remove();
      return;
    }
    const node = document.importNode(replacement, true);
    if (current) {
      current.replaceWith(node);
      return;
    }
    // A section the page did not have (the recording, once the event ended): after its neighbour.
    const before = replacement.previousElementSibling;
    const anchor = before?.id ? document.getElementById(before.id) : null;
    if (anchor) anchor.after(node);
    else this.main.append(node);
  }

  private async readSeats(): Promise<void> {
    let event: EventView;
    try {
      event = await getJson<EventView>(this.base);
    } catch {
      return; // the next ticket, or a reload, shows them
    }
    const seats = new Map(seatsOf(event).map((tier) => [tier.id, tier]));
    for (const item of document.querySelectorAll<HTMLElement>('#seats li[data-tier]')) {
      const tier = seats.get(item.dataset['tier'] ?? '');
      const left = item.querySelector('.left');
      if (!tier || !left) continue;
      left.textContent = String(tier.left);
      if (left.nextSibling?.nodeType === Node.TEXT_NODE) left.nextSibling.textContent = seatsLeftText(tier);
    }
  }
}
