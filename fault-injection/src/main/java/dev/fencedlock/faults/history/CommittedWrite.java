package dev.fencedlock.faults.history;

/**
 * One row of a counter's commit log: the database's own record of a committed increment, written in
 * the same transaction as the increment, so it exists exactly when the increment was committed.
 *
 * @param attempt the {@link FencedWrite#attempt()} that committed
 * @param token the token the write carried
 * @param value the value the counter took
 * @param sequence the log row's id, ascending in insertion order
 */
public record CommittedWrite(String attempt, long token, long value, long sequence) {}
