package dev.fencedlock.faults.history;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The checker's findings for one history. Which overlaps a fault allows depends on the fault (a
 * client paused past its lease must be followed by a second holder), so overlaps are reported, not
 * judged; {@link #violations()} lists what no fault may cause when the fence works.
 *
 * @param sections how many critical sections the history holds
 * @param lostSections how many of them learned of the loss of their lease
 * @param overlaps pairs of sections of one lock whose [enter, exit) intersect
 * @param tokenInversions pairs where the second began to acquire after the first was granted yet
 *     got a token that is not larger
 * @param duplicateTokens pairs of distinct sections of one lock with the same token
 * @param writesOk writes the clients saw commit
 * @param writesRefused writes the fence refused
 * @param writesUnknown writes of unknown outcome
 * @param refusalReasons refused writes by {@link FencedWrite#detail()}
 * @param counters one check per counter state given
 */
public record CheckReport(
        int sections,
        int lostSections,
        List<SectionPair> overlaps,
        List<SectionPair> tokenInversions,
        List<SectionPair> duplicateTokens,
        long writesOk,
        long writesRefused,
        long writesUnknown,
        Map<String, Long> refusalReasons,
        List<CounterCheck> counters) {

    public CheckReport {
        overlaps = List.copyOf(overlaps);
        tokenInversions = List.copyOf(tokenInversions);
        duplicateTokens = List.copyOf(duplicateTokens);
        refusalReasons = Map.copyOf(refusalReasons);
        counters = List.copyOf(counters);
    }

    /** Overlaps in which both clients believed they held the lock at one instant. */
    public List<SectionPair> unsafeOverlaps() {
        return overlaps.stream().filter(SectionPair::bothBelievedValid).toList();
    }

    /** Overlaps in which neither client ever learned that its lease was lost. */
    public List<SectionPair> overlapsWithoutLoss() {
        return overlaps.stream().filter(p -> !p.explainedByLoss()).toList();
    }

    /** Unsafe overlaps in which neither client ever learned that its lease was lost. */
    public List<SectionPair> unsafeOverlapsWithoutLoss() {
        return overlaps.stream()
                .filter(p -> p.bothBelievedValid() && !p.explainedByLoss())
                .toList();
    }

    /** Lost updates over all counters. */
    public long lostUpdates() {
        return counters.stream().mapToLong(CounterCheck::lostUpdates).sum();
    }

    /** Stale writes the database accepted, over all counters. */
    public long staleAccepted() {
        return counters.stream().mapToLong(c -> c.staleAccepted().size()).sum();
    }

    /**
     * What no fault may cause while the fence works: token inversions, duplicate tokens, lost
     * updates, growth the log does not explain, stale writes accepted, acknowledged writes that are
     * missing, refused writes that committed. Empty when the history is clean.
     */
    public List<String> violations() {
        List<String> found = new ArrayList<>();
        tokenInversions.forEach(p -> found.add("token not increasing in grant order: " + p));
        duplicateTokens.forEach(p -> found.add("two grants with one token: " + p));
        for (CounterCheck c : counters) {
            if (c.lostUpdates() > 0) {
                found.add(c.counter() + ": " + c.lostUpdates() + " lost update(s): " + c.committed()
                        + " committed increments, the counter grew by " + c.increase());
            }
            if (c.unexplainedIncrease() > 0) {
                found.add(c.counter() + ": grew by " + c.increase() + " but only " + c.committed()
                        + " increments committed");
            }
            c.staleAccepted().forEach(w -> found.add(c.counter() + ": stale write accepted: " + w));
            c.acknowledgedButMissing().forEach(w -> found.add(c.counter() + ": acknowledged write missing: " + w));
            c.refusedButCommitted().forEach(w -> found.add(c.counter() + ": refused write committed: " + w));
        }
        return found;
    }

    /** One line for logs and assertion messages. */
    public String summary() {
        return "sections=" + sections + " (lost " + lostSections + "), overlaps=" + overlaps.size() + " (unsafe "
                + unsafeOverlaps().size() + ", without loss "
                + overlapsWithoutLoss().size() + "), tokenInversions="
                + tokenInversions.size() + ", duplicateTokens=" + duplicateTokens.size() + ", writes ok=" + writesOk
                + " refused=" + writesRefused + " unknown=" + writesUnknown + ", refusals=" + refusalReasons
                + ", lostUpdates=" + lostUpdates() + ", staleAccepted=" + staleAccepted();
    }
}
