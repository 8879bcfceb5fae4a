import { z } from "zod";
import { CommandError } from "../kit/commandError.ts";
import type { Decider } from "../kit/handleCommand.ts";
import { registerClientInput } from "./clients.ts";
import type { AuthorEvent } from "./events.ts";


export const registerAuthorInput = registerClientInput.extend({
  name: z.string().trim().min(1, "name is required: the author's name, shown as 'who' on the versions they publish").max(100),
});

/** What `POST /api/admin/authors` answers: the token is shown this once, only its digest is stored. */
export const issuedAuthorToken = z.object({ authorId: z.string(), token: z.string().meta({ description: "The authoring token, shown once" }) });

export type AuthorCommand = { type: "register"; authorId: string; name: string; tokenDigest: string };

export const authorDecider: Decider<{ exists: boolean }, AuthorCommand, AuthorEvent> = {
  initialState: () => ({ exists: false }),
  evolve: (_state, event) => {
    switch (event.type) {
      case "AuthorRegistered":
        return { exists: true };
    }
  },
  decide: (command, state) => {
    if (state.exists) throw new CommandError("conflict", "an author with this id exists already");
    return [{ type: "AuthorRegistered", data: { authorId: command.authorId, name: command.name, tokenDigest: command.tokenDigest } }];
  },
};
