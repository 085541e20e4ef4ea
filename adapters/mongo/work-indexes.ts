import { MongoServerError, type Collection, type Document, type IndexSpecification } from "mongodb";

/**
 * An index over only the documents with work pending (a move, a mark, an event not yet relayed). Every write to a
 * document adds an entry to each full index of its collection on DocumentDB, whatever field it changed; a partial
 * index costs only the writes of the documents in it. Queries name it (`hint`): the planner does not always pick a
 * partial index, and a scan of the collection would cost what the collection holds, not the work pending.
 */
export interface WorkIndex {
  name: string;
  key: IndexSpecification;
  /** The partial filter; every query that hints the index implies it. */
  only: Document;
  /** The full index it replaced, dropped at start-up. */
  replaces: string;
}

const NAMESPACE_NOT_FOUND = 26;
const INDEX_NOT_FOUND = 27;

/** Drops an index if it is there: start-up is safe to repeat, on any number of instances at once. */
export const retireIndex = async <D extends Document>(collection: Collection<D>, name: string): Promise<void> => {
  await collection.dropIndex(name).catch((error: unknown) => {
    if (!(error instanceof MongoServerError && (error.code === NAMESPACE_NOT_FOUND || error.code === INDEX_NOT_FOUND)))
      throw error;
  });
};

/** Creates the work indexes, then drops the full ones they replace (so a query never lacks one meanwhile). */
export const createWorkIndexes = async (collection: Collection, indexes: readonly WorkIndex[]): Promise<void> => {
  for (const index of indexes) {
    await collection.createIndex(index.key, { name: index.name, partialFilterExpression: index.only });
    await retireIndex(collection, index.replaces);
  }
};

/** The relay's: pet and order documents holding events, oldest first (MongoOutbox). */
export const PENDING_EVENTS: WorkIndex = {
  name: "pending_events",
  key: { hasEvents: 1, eventsSince: 1, _id: 1 },
  only: { hasEvents: true },
  replaces: "hasEvents_1_eventsSince_1__id_1",
};

/** Where an event not yet relayed is held, by its id. */
export const PENDING_EVENT_IDS: WorkIndex = {
  name: "pending_event_ids",
  key: { "outbox.id": 1 },
  only: { hasEvents: true },
  replaces: "outbox.id_1",
};
