package dev.fencedlock.faults.history;

import java.util.List;
import java.util.Objects;

/**
 * A counter as the database holds it at the end of a run.
 *
 * @param counter the counter's name, as in {@link FencedWrite#counter()}
 * @param initialValue its value before the run
 * @param finalValue its value after the run
 * @param committed its commit log, in any order
 */
public record CounterState(String counter, long initialValue, long finalValue, List<CommittedWrite> committed) {
    public CounterState {
        Objects.requireNonNull(counter, "counter");
        committed = List.copyOf(committed);
    }
}
