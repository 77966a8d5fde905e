// Time controls (protocol/clock.py): what the offer's terms say of the clock, and the rule every receiver applies to
// it; how long a claim waits and its answer window; what the receipts leave unexplained of a move (Answer).

/** The least thinking a live move is charged. */
export const FLOOR_MS = 100;
export const MAX_BASE_S = 3 * 3600;
export const MAX_INCREMENT_S = 600;
export const MAX_DAYS = 30;
export const DAY_MS = 24 * 3600 * 1000;
/** No move's think= is more. */
export const MAX_THINK_MS = MAX_DAYS * DAY_MS;
/** A live game's first-move limit is the larger of this and a tenth of the base. */
export const FIRST_MOVE_MIN_MS = 30_000;
export const FIRST_MOVE_SHARE = 10;
/** The least a flag claim waits beyond the time the player to move had. */
export const GRACE_MS = 1000;
/** How long the player to move of an untimed game may stay silent before it can be claimed against. */
export const ABANDONED_MS = 7 * DAY_MS;
export const WINDOW_MIN_MS = 30_000;
export const WINDOW_SHARE = 20;
export const CORRESPONDENCE_WINDOW_MS = DAY_MS;
export const BOUND_MIN_MS = 5000;
export const BOUND_SHARE = 50;
/** The most of a move's round trip put down to the network. */
export const LAG_MOST_MS = 1000;
/** What a move's delivery may take beyond its receipt's without counting. */
export const SLACK_MS = 100;

const CLOCK_TERM = /^([1-9][0-9]{0,4})\+(0|[1-9][0-9]{0,2})$/;
const DAYS_TERM = /^[1-9][0-9]?$/;

/** A live control (`baseMs` and `incrementMs`) or a correspondence one (`days`). */
export class TimeControl {
  /** @param {{baseMs?: number, incrementMs?: number, days?: number}} fields */
  constructor({ baseMs = 0, incrementMs = 0, days = 0 }) {
    this.baseMs = baseMs;
    this.incrementMs = incrementMs;
    this.days = days;
    Object.freeze(this);
  }

  /**
   * The control a clock: or days: term names; RangeError for a value no implementation plays.
   * @param {string} name
   * @param {string} value
   */
  static fromTerm(name, value) {
    if (name === "clock") {
      const match = CLOCK_TERM.exec(value);
      if (match === null || Number(match[1]) > MAX_BASE_S || Number(match[2]) > MAX_INCREMENT_S) {
        throw new RangeError(`clock:${value} is no time control (BASE+INCREMENT seconds: a base from 1 to `
          + `${MAX_BASE_S}, an increment from 0 to ${MAX_INCREMENT_S})`);
      }
      return new TimeControl({ baseMs: Number(match[1]) * 1000, incrementMs: Number(match[2]) * 1000 });
    }
    if (name === "days") {
      if (!DAYS_TERM.test(value) || Number(value) > MAX_DAYS) {
        throw new RangeError(`days:${value} is no time control (1 to ${MAX_DAYS} days a move)`);
      }
      return new TimeControl({ days: Number(value) });
    }
    throw new RangeError(`${name}: is no time control`);
  }

  /**
   * The control an offer's terms name (null: untimed); RangeError for one it cannot name.
   * @param {string | null} terms
   * @returns {TimeControl | null}
   */
  static ofTerms(terms) {
    const found = [];
    for (const item of (terms || "").split(",")) {
      const colon = item.indexOf(":");
      const name = colon < 0 ? item : item.slice(0, colon);
      if (name === "clock" || name === "days") found.push(TimeControl.fromTerm(name, colon < 0 ? "" : item.slice(colon + 1)));
    }
    if (found.length > 1) throw new RangeError("an offer names one time control: clock: or days:, not both");
    return found[0] ?? null;
  }

  /** `5+3`, `0:30+2`, `3 days a move`. */
  text() {
    if (this.days) return `${this.days} day${this.days > 1 ? "s" : ""} a move`;
    const total = Math.floor(this.baseMs / 1000);
    const [minutes, secs] = [Math.floor(total / 60), total % 60];
    const base = secs ? `${minutes}:${String(secs).padStart(2, "0")}` : `${minutes}`;
    return `${base}+${Math.floor(this.incrementMs / 1000)}`;
  }

  /** Each clock at the start. */
  get startMs() {
    return this.days ? this.days * DAY_MS : this.baseMs;
  }

  /** The time each player has for its first move, where the rules make that move free (rules:2). */
  get firstMoveMs() {
    return this.days ? this.startMs : Math.max(FIRST_MOVE_MIN_MS, Math.floor(this.baseMs / FIRST_MOVE_SHARE));
  }

  /**
   * The mover's clock after its first move, off its clock (rules:2); RangeError if it came too late.
   * @param {number} thinkMs
   */
  first(thinkMs) {
    checkThink(thinkMs);
    if (thinkMs >= this.firstMoveMs) {
      throw new RangeError(`too late for a first move: think=${thinkMs} is not within the ${this.firstMoveMs} ms `
        + "a first move has");
    }
    return this.startMs;
  }

  /**
   * The mover's clock after a move that took `thinkMs` with `remainingMs` on it; RangeError if out of time.
   * @param {number} remainingMs
   * @param {number} thinkMs
   */
  after(remainingMs, thinkMs) {
    checkThink(thinkMs);
    if (thinkMs >= remainingMs) {
      throw new RangeError(`out of time: think=${thinkMs} is not within the ${remainingMs} ms the mover had left`);
    }
    if (this.days) return this.startMs;
    return Math.max(0, remainingMs - Math.max(thinkMs, FLOOR_MS)) + this.incrementMs;
  }
}

/** @param {number} thinkMs */
function checkThink(thinkMs) {
  if (!(thinkMs >= 0 && thinkMs <= MAX_THINK_MS)) {
    throw new RangeError(`think=${thinkMs} is beyond any move's thinking (${MAX_THINK_MS} ms at most)`);
  }
}

/**
 * How long the player to move must have been silent, by the claimant's clock, before a flag claim against it.
 * @param {TimeControl | null} control
 * @param {number} remainingMs
 */
export function claimAfter(control, remainingMs) {
  return control === null ? ABANDONED_MS + GRACE_MS : remainingMs + GRACE_MS;
}

/**
 * How long a flag claim stays open for its answer before the claimant may end the game.
 * @param {TimeControl | null} control
 */
export function answerWindow(control) {
  if (control === null || control.days) return CORRESPONDENCE_WINDOW_MS;
  return Math.max(WINDOW_MIN_MS, Math.floor(control.baseMs / WINDOW_SHARE));
}

/**
 * The most unexplained time a claimant's own moves may show for its claim to win on time (live games), or null.
 * @param {TimeControl | null} control
 * @returns {number | null}
 */
export function disputeBound(control) {
  if (control === null || control.days) return null;
  return Math.max(BOUND_MIN_MS, Math.floor(control.baseMs / BOUND_SHARE));
}

/** One move of a timed game as the receipts show it (protocol/clock.py's Answer). */
export class Answer {
  /**
   * @param {string} player
   * @param {number} think
   * @param {number | null} [elapsed]
   * @param {number | null} [roundTrip]
   * @param {number | null} [offset]
   */
  constructor(player, think, elapsed = null, roundTrip = null, offset = null) {
    this.player = player;
    this.think = think;
    this.elapsed = elapsed;
    this.roundTrip = roundTrip;
    this.offset = offset;
    Object.freeze(this);
  }

  /** The time the other player waited for this move that neither its thinking nor the network explains, or null. */
  get unexplained() {
    if (this.elapsed === null) return null;
    const lag = this.roundTrip === null ? LAG_MOST_MS : Math.min(this.roundTrip, LAG_MOST_MS);
    return Math.max(0, this.elapsed - this.think - lag - SLACK_MS);
  }
}

/**
 * @typedef {{used: number, unexplained: number, moves: number, measured: number}} TimeUsed
 */

/**
 * Each player's thinking and unexplained time over `answers`.
 * @param {Answer[]} answers
 * @param {readonly string[]} players
 * @returns {Record<string, TimeUsed>}
 */
export function timeUsed(answers, players) {
  /** @type {Record<string, TimeUsed>} */
  const totals = Object.fromEntries(players.map((player) => [player, { used: 0, unexplained: 0, moves: 0, measured: 0 }]));
  for (const answer of answers) {
    const before = totals[answer.player];
    const unexplained = answer.unexplained;
    totals[answer.player] = { used: before.used + answer.think, unexplained: before.unexplained + (unexplained ?? 0),
      moves: before.moves + 1, measured: before.measured + (unexplained !== null ? 1 : 0) };
  }
  return totals;
}
