package dev.fencedlock.faults.history;

import java.util.Objects;

/**
 * One attempt to increment a counter inside a critical section, as the client saw it end.
 *
 * @param counter the name of the counter row written
 * @param client who wrote, as in {@link CriticalSection#client()}
 * @param attempt an id unique to this attempt within the history; the database's commit log
 *     records it with the write, so an {@link WriteOutcome#UNKNOWN} outcome can be resolved
 * @param token the token the write carried
 * @param outcome what the client learned
 * @param detail why a write was refused or its outcome is unknown (e.g. {@code ROW_CHANGED}); empty
 *     for {@link WriteOutcome#OK}
 * @param atNanos when the outcome was known, on the shared monotonic clock
 */
public record FencedWrite(
        String counter, String client, String attempt, long token, WriteOutcome outcome, String detail, long atNanos) {

    public FencedWrite {
        HistoryFormat.requirePlain("counter", counter);
        HistoryFormat.requirePlain("client", client);
        HistoryFormat.requirePlain("attempt", attempt);
        Objects.requireNonNull(outcome, "outcome");
        detail = HistoryFormat.plain(detail == null ? "" : detail);
    }
}
