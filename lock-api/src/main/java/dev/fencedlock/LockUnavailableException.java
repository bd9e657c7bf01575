package dev.fencedlock;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The backend could not answer: too few Redis nodes were reachable for a quorum, or ZooKeeper was
 * down. The message and {@link #nodeFailures()} list each failing node and its cause. The first
 * node cause is attached as the exception's cause, the others as suppressed exceptions.
 */
public class LockUnavailableException extends LockException {
    private static final long serialVersionUID = 1L;

    private final String lockName;
    private final transient List<NodeFailure> nodeFailures;

    /** Every node in {@code nodeFailures} gave no answer; the others answered and counted. */
    public LockUnavailableException(
            String lockName, Duration elapsed, int nodesTotal, int nodesNeeded, List<NodeFailure> nodeFailures) {
        this(lockName, elapsed, nodesTotal, nodesTotal - nodeFailures.size(), nodesNeeded, nodeFailures);
    }

    /**
     * @param nodesAnswered how many nodes answered, including those in {@code nodeFailures} whose
     *     answer did not count (for example a Redis node in its restart quarantine)
     */
    public LockUnavailableException(
            String lockName,
            Duration elapsed,
            int nodesTotal,
            int nodesAnswered,
            int nodesNeeded,
            List<NodeFailure> nodeFailures) {
        super(
                message(lockName, elapsed, nodesTotal, nodesAnswered, nodesNeeded, nodeFailures),
                nodeFailures.isEmpty() ? null : nodeFailures.get(0).cause());
        this.lockName = lockName;
        this.nodeFailures = List.copyOf(nodeFailures);
        for (int i = 1; i < this.nodeFailures.size(); i++) {
            addSuppressed(this.nodeFailures.get(i).cause());
        }
    }

    /**
     * A backend that cannot be asked now for a reason other than its nodes' answers, told in {@code
     * message} (for example a fallback that may not grant yet); no node failures.
     *
     * @param cause what made the backend unusable, or null
     */
    public LockUnavailableException(String lockName, String message, Throwable cause) {
        super(message, cause);
        this.lockName = lockName;
        this.nodeFailures = List.of();
    }

    private static String message(
            String lockName,
            Duration elapsed,
            int nodesTotal,
            int nodesAnswered,
            int nodesNeeded,
            List<NodeFailure> failures) {
        String causes = failures.stream().map(NodeFailure::toString).collect(Collectors.joining("; "));
        int counted = nodesTotal - failures.size();
        return "Lock '" + lockName + "' unavailable after " + elapsed.toMillis() + " ms: "
                + nodesAnswered + " of " + nodesTotal + " nodes answered, "
                + (nodesAnswered == counted ? "" : counted + " counted, ") + nodesNeeded
                + " needed" + (causes.isEmpty() ? "" : " [" + causes + "]");
    }

    public String lockName() {
        return lockName;
    }

    /**
     * One entry per node that failed, in node order; never empty when a node failed, empty when the
     * backend was not asked.
     */
    public List<NodeFailure> nodeFailures() {
        return nodeFailures;
    }
}
