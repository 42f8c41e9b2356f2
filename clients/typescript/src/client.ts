// A small typed client of the Blue Moon City API. Its types come only from openapi.yaml
// (`npm run types` writes src/api.d.ts with openapi-typescript); `npm run check` compiles it.
import type { components, operations } from "./api";

type Schemas = components["schemas"];
export type GameView = Schemas["GameView"];
export type Legal = Schemas["Legal"];
export type Command = Schemas["Command"];
export type Event = Schemas["Event"];
export type Problem = Schemas["Problem"];
type CreateGame = operations["createGame"]["requestBody"]["content"]["application/json"];
type Created = operations["createGame"]["responses"]["201"]["content"]["application/json"];
type EventPage = operations["listEvents"]["responses"]["200"]["content"]["application/json"];

export class ApiError extends Error {
  constructor(readonly status: number, readonly problem: Problem) {
    super(`${status} ${problem.title}: ${problem.detail ?? ""}`);
  }
}

export class BlueMoon {
  constructor(private readonly base: string, private readonly token?: string) {}

  private async call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const response = await fetch(this.base + path, {
      method,
      headers: {
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
        ...(this.token ? { Authorization: `Bearer ${this.token}` } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new ApiError(response.status, (await response.json()) as Problem);
    return (await response.json()) as T;
  }

  create(game: CreateGame): Promise<Created> {
    return this.call("POST", "/games", game);
  }

  view(game: string): Promise<GameView> {
    return this.call("GET", `/games/${game}`);
  }

  legal(game: string): Promise<Legal> {
    return this.call("GET", `/games/${game}/legal`);
  }

  play(game: string, version: number, command: Command): Promise<Schemas["CommandResult"]> {
    return this.call("POST", `/games/${game}/commands`, command, {
      "If-Match": `"${version}"`,
      "Idempotency-Key": `${game}-${version}-${command.type}`,
    });
  }

  events(game: string, after: number, wait = 25): Promise<EventPage> {
    return this.call("GET", `/games/${game}/events?after=${after}&wait=${wait}`);
  }
}

/** What an event says, in words: the discriminated union narrows `data` by `type`. */
export function describe(event: Event): string {
  switch (event.type) {
    case "FigureMoved":
      return `seat ${event.data.seat} walks to ${event.data.to}`;
    case "ContributionMade":
      return `seat ${event.data.seat} pays ${event.data.cards.length} card(s) at ${event.data.building}`;
    case "BuildingCompleted":
      return `${event.data.building} is rebuilt; majority to seat ${event.data.majority}`;
    case "Rewarded":
      return `seat ${event.data.seat} gets ${event.data.crystals ?? "some"} crystals and ${event.data.scales} scale(s)`;
    case "GameEnded":
      return `the game ends (${event.data.reason}); winners: ${event.data.winners.join(", ")}`;
    default:
      return event.type;
  }
}

/** The fields a command takes depend on its type: the compiler checks each one. */
export function endTurn(discards: Schemas["CardId"][] = []): Command {
  return { type: "end_turn", discards };
}

export function contribute(building: Schemas["Building"], space: number, cards: Schemas["CardId"][]): Command {
  return { type: "contribute", building, space, cards };
}

/** Play one human seat: take the first contribution on offer, else end the turn. */
export async function playMyTurns(api: BlueMoon, game: string, seat: number): Promise<void> {
  let after = 0;
  for (;;) {
    const view = await api.view(game);
    if (view.result) return;
    if (view.turn?.seat === seat) {
      const legal = await api.legal(game);
      const choice = legal.commands.find((c) => c.type === "contribute") ?? endTurn();
      await api.play(game, legal.version, choice);
      continue;
    }
    const page = await api.events(game, after);
    page.events.forEach((e) => console.log(describe(e)));
    after = page.next;
  }
}
