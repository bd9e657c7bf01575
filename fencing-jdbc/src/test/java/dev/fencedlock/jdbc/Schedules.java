package dev.fencedlock.jdbc;

import java.util.ArrayList;
import java.util.List;

/** Every interleaving of two transactions' steps, each transaction keeping its own order. */
final class Schedules {
    /** One step of a read-modify-write transaction. */
    enum Step {
        /** The transaction's start (the guard, when fenced) and its read of the counter. */
        READ,
        /** The update of the counter to the value read plus one. */
        WRITE,
        COMMIT
    }

    /** A step of transaction 0 or 1. */
    record Move(int transaction, Step step) {
        @Override
        public String toString() {
            return step.name().charAt(0) + String.valueOf(transaction + 1);
        }
    }

    private Schedules() {}

    /** All C(2n, n) interleavings of two transactions of the steps {@code steps}. */
    static List<List<Move>> all(List<Step> steps) {
        List<List<Move>> schedules = new ArrayList<>();
        interleave(steps, 0, 0, new ArrayList<>(), schedules);
        return schedules;
    }

    private static void interleave(List<Step> steps, int first, int second, List<Move> prefix, List<List<Move>> out) {
        if (first == steps.size() && second == steps.size()) {
            out.add(List.copyOf(prefix));
            return;
        }
        if (first < steps.size()) {
            prefix.add(new Move(0, steps.get(first)));
            interleave(steps, first + 1, second, prefix, out);
            prefix.remove(prefix.size() - 1);
        }
        if (second < steps.size()) {
            prefix.add(new Move(1, steps.get(second)));
            interleave(steps, first, second + 1, prefix, out);
            prefix.remove(prefix.size() - 1);
        }
    }
}
