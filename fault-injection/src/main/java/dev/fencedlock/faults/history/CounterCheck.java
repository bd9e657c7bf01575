package dev.fencedlock.faults.history;

import java.util.List;

/**
 * What the checker found for one counter.
 *
 * @param counter the counter's name
 * @param increase how much the counter grew during the run
 * @param committed how many increments the commit log holds
 * @param lostUpdates committed increments the counter does not reflect: {@code committed -
 *     increase} when positive. A read-modify-write that overwrote another's committed increment
 *     shows here.
 * @param unexplainedIncrease growth the commit log does not account for: {@code increase -
 *     committed} when positive
 * @param staleAccepted committed writes whose token is smaller than that of a write committed
 *     before them (in the counter's commit order, which is value order)
 * @param acknowledgedButMissing writes the client saw commit that the log does not have
 * @param refusedButCommitted writes the client saw refused that the log has
 * @param unknownCommitted writes of unknown outcome that the log shows committed
 * @param unknownNotCommitted writes of unknown outcome that never committed
 */
public record CounterCheck(
        String counter,
        long increase,
        long committed,
        long lostUpdates,
        long unexplainedIncrease,
        List<CommittedWrite> staleAccepted,
        List<FencedWrite> acknowledgedButMissing,
        List<FencedWrite> refusedButCommitted,
        long unknownCommitted,
        long unknownNotCommitted) {

    public CounterCheck {
        staleAccepted = List.copyOf(staleAccepted);
        acknowledgedButMissing = List.copyOf(acknowledgedButMissing);
        refusedButCommitted = List.copyOf(refusedButCommitted);
    }
}
