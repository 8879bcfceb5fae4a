import type { ZodOpenApiPathsObject } from "zod-openapi";
import { z } from "zod";
import { messageDetail, messagePage, messageSearchQuery } from "../../messages/messageRoutes.ts";
import { apiFailures, json, security } from "./shared.ts";

const readerFailures = {
  401: "No credential, or one that is wrong, expired or revoked",
  403: "The caller has neither the role admin nor integrator, or is of another tenant",
} as const;

/** Contract G.5: every received message kept and findable. */
export const messagesApiPaths: ZodOpenApiPathsObject = {
  "/api/messages": {
    get: {
      tags: ["Messages"],
      operationId: "searchMessages",
      summary: "The messages the tenant's senders sent, newest first, with what each was told (contract G.5)",
      description:
        "Every /open/v1 push, HL7 message (over HTTP or MLLP) and FHIR Bundle a client with a valid key sent, kept with its " +
        "outcome (accepted, partial, refused), the externalIds and errors it carried and the answer the sender got. A patientId " +
        "is searched by its keyed hash; id cards are masked (first 6 and last 4) unless the caller is admin. Keyset paging: send " +
        "the answer's next as cursor.",
      security: security.author,
      requestParams: { query: messageSearchQuery },
      responses: {
        200: { description: "A page of messages", ...json(messagePage) },
        ...apiFailures({ 400: "A parameter that is not one of the list, or malformed", ...readerFailures }),
      },
    },
  },
  "/api/messages/{messageId}": {
    get: {
      tags: ["Messages"],
      operationId: "message",
      summary: "One kept message with its body beside the answer its sender got (contract G.5)",
      security: security.author,
      requestParams: { path: z.object({ messageId: z.uuid() }) },
      responses: {
        200: { description: "The message and its body (null once the body was dropped)", ...json(messageDetail) },
        ...apiFailures({ ...readerFailures, 404: "No message of that id in the tenant" }),
      },
    },
  },
};
