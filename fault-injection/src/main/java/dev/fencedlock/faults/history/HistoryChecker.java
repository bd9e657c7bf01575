package dev.fencedlock.faults.history;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Checks a merged history against the final state of the counters it wrote.
 *
 * <ol>
 *   <li><b>Overlapping holders</b>: per lock, every pair of sections whose [enter, exit) intersect;
 *       whether both believed they were valid at one instant, and whether either learned of its
 *       loss, is left to the caller to judge per fault ({@link CheckReport#unsafeOverlaps()}).
 *   <li><b>Tokens in grant order</b>: a section that began to acquire after another section of
 *       the same lock was granted must have a larger token; two grants never share one.
 *   <li><b>Lost updates</b>: each counter's increments in its commit log (the database's own record,
 *       committed with each increment) against how much the counter grew. Writes of unknown outcome
 *       are resolved through the log; writes the client saw commit or saw refused must agree with it.
 *   <li><b>Stale writes accepted</b>: in a counter's commit order (each increment takes the value
 *       after the one it read, so value order is commit order) no token may be smaller than one
 *       committed before it.
 * </ol>
 *
 * <p>Runs in O(n log n + overlapping pairs). Stateless and thread-safe.
 */
public final class HistoryChecker {
    private static final Comparator<CriticalSection> BY_ENTER =
            Comparator.comparingLong(CriticalSection::enterNanos).thenComparing(CriticalSection::client);

    private HistoryChecker() {}

    /**
     * @param counters the final state of every counter whose writes should be checked; writes to
     *     other counters are only counted
     * @throws IllegalArgumentException if two writes share an attempt id
     */
    public static CheckReport check(History history, Collection<CounterState> counters) {
        Map<String, List<CriticalSection>> byLock = history.sections().stream()
                .collect(Collectors.groupingBy(CriticalSection::lock, TreeMap::new, Collectors.toList()));
        List<SectionPair> overlaps = new ArrayList<>();
        List<SectionPair> inversions = new ArrayList<>();
        List<SectionPair> duplicates = new ArrayList<>();
        for (List<CriticalSection> sections : byLock.values()) {
            overlaps.addAll(overlaps(sections));
            inversions.addAll(tokenInversions(sections));
            duplicates.addAll(duplicateTokens(sections));
        }

        Map<String, FencedWrite> byAttempt = new HashMap<>();
        for (FencedWrite write : history.writes()) {
            if (byAttempt.put(write.attempt(), write) != null) {
                throw new IllegalArgumentException("two writes share attempt id " + write.attempt());
            }
        }
        Map<String, Long> reasons = history.writes().stream()
                .filter(w -> w.outcome() == WriteOutcome.REFUSED_STALE)
                .collect(Collectors.groupingBy(FencedWrite::detail, TreeMap::new, Collectors.counting()));
        List<CounterCheck> counterChecks = new ArrayList<>();
        for (CounterState state : counters) {
            counterChecks.add(checkCounter(state, history.writes()));
        }
        return new CheckReport(
                history.sections().size(),
                (int) history.sections().stream().filter(CriticalSection::lost).count(),
                overlaps,
                inversions,
                duplicates,
                count(history.writes(), WriteOutcome.OK),
                count(history.writes(), WriteOutcome.REFUSED_STALE),
                count(history.writes(), WriteOutcome.UNKNOWN),
                reasons,
                counterChecks);
    }

    /** A sweep in enter order, keeping the sections that have not exited yet. */
    private static List<SectionPair> overlaps(List<CriticalSection> sections) {
        List<CriticalSection> ordered = new ArrayList<>(sections);
        ordered.sort(BY_ENTER);
        List<SectionPair> found = new ArrayList<>();
        List<CriticalSection> open = new ArrayList<>();
        for (CriticalSection next : ordered) {
            open.removeIf(s -> s.exitNanos() <= next.enterNanos());
            for (CriticalSection s : open) {
                if (s.overlaps(next)) {
                    found.add(new SectionPair(s, next));
                }
            }
            open.add(next);
        }
        return found;
    }

    /**
     * Walks the sections in the order they began to acquire, keeping the largest token of the
     * sections granted before that instant.
     */
    private static List<SectionPair> tokenInversions(List<CriticalSection> sections) {
        List<CriticalSection> granted = new ArrayList<>(sections);
        granted.sort(BY_ENTER);
        List<CriticalSection> starting = new ArrayList<>(sections);
        starting.sort(Comparator.comparingLong(CriticalSection::acquireStartNanos));
        List<SectionPair> found = new ArrayList<>();
        CriticalSection largest = null;
        int next = 0;
        for (CriticalSection later : starting) {
            while (next < granted.size() && granted.get(next).enterNanos() < later.acquireStartNanos()) {
                CriticalSection candidate = granted.get(next++);
                if (largest == null || candidate.token() > largest.token()) {
                    largest = candidate;
                }
            }
            if (largest != null && later.token() <= largest.token()) {
                found.add(new SectionPair(largest, later));
            }
        }
        return found;
    }

    private static List<SectionPair> duplicateTokens(List<CriticalSection> sections) {
        Map<Long, Deque<CriticalSection>> byToken = new HashMap<>();
        List<SectionPair> found = new ArrayList<>();
        for (CriticalSection section : sections) {
            Deque<CriticalSection> same = byToken.computeIfAbsent(section.token(), t -> new ArrayDeque<>());
            if (!same.isEmpty()) {
                found.add(new SectionPair(same.peekFirst(), section));
            }
            same.addLast(section);
        }
        return found;
    }

    private static CounterCheck checkCounter(CounterState state, List<FencedWrite> allWrites) {
        Set<String> committedAttempts = new HashSet<>();
        for (CommittedWrite write : state.committed()) {
            committedAttempts.add(write.attempt());
        }
        List<FencedWrite> missing = new ArrayList<>();
        List<FencedWrite> refusedCommitted = new ArrayList<>();
        long unknownCommitted = 0;
        long unknownNotCommitted = 0;
        for (FencedWrite write : allWrites) {
            if (!write.counter().equals(state.counter())) {
                continue;
            }
            boolean committed = committedAttempts.contains(write.attempt());
            switch (write.outcome()) {
                case OK -> {
                    if (!committed) {
                        missing.add(write);
                    }
                }
                case REFUSED_STALE -> {
                    if (committed) {
                        refusedCommitted.add(write);
                    }
                }
                case UNKNOWN -> {
                    if (committed) {
                        unknownCommitted++;
                    } else {
                        unknownNotCommitted++;
                    }
                }
            }
        }
        long increase = state.finalValue() - state.initialValue();
        long committed = state.committed().size();
        return new CounterCheck(
                state.counter(),
                increase,
                committed,
                Math.max(0, committed - increase),
                Math.max(0, increase - committed),
                staleAccepted(state.committed()),
                missing,
                refusedCommitted,
                unknownCommitted,
                unknownNotCommitted);
    }

    private static List<CommittedWrite> staleAccepted(List<CommittedWrite> committed) {
        List<CommittedWrite> ordered = new ArrayList<>(committed);
        ordered.sort(Comparator.comparingLong(CommittedWrite::value).thenComparingLong(CommittedWrite::sequence));
        List<CommittedWrite> found = new ArrayList<>();
        long highest = Long.MIN_VALUE;
        for (CommittedWrite write : ordered) {
            if (write.token() < highest) {
                found.add(write);
            }
            highest = Math.max(highest, write.token());
        }
        return found;
    }

    private static long count(List<FencedWrite> writes, WriteOutcome outcome) {
        return writes.stream().filter(w -> w.outcome() == outcome).count();
    }
}
