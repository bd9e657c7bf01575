package dev.fencedlock.redlock.internal;

import dev.fencedlock.LockUnavailableException;
import dev.fencedlock.NodeFailure;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The tally of one round of replies: how many counting nodes granted, refused or failed, and what
 * the token counters said. Confined to the acquiring thread.
 */
final class Votes {
    private final int nodes;
    private final int quorum;
    private final List<NodeFailure> failures = new ArrayList<>();
    private int granted;
    private int accepted;
    private int taken;
    private int excluded;
    private int evicting;
    private long highestCounter;
    private String problem;

    Votes(int nodes) {
        this.nodes = nodes;
        this.quorum = quorum(nodes);
    }

    /** The smallest quorum of {@code nodes}: a strict majority, {@code N/2 + 1}. */
    static int quorum(int nodes) {
        return nodes / 2 + 1;
    }

    /** A counting node granted the lock; {@code tokenAccepted} if its counter took the proposal. */
    void granted(boolean tokenAccepted, long counter) {
        granted++;
        if (tokenAccepted) {
            accepted++;
        }
        highestCounter = Math.max(highestCounter, counter);
    }

    /** A counting node answered that another value holds the lock. */
    void taken() {
        taken++;
    }

    /** A node gave no usable answer. */
    void failed(String node, Throwable cause) {
        failures.add(new NodeFailure(node, cause));
    }

    /**
     * A node answered, but its answer does not count: it is in its restart quarantine ({@link
     * NodeQuarantinedException}) or may evict keys ({@link EvictingNodeException}).
     */
    void excluded(String node, RuntimeException reason) {
        failures.add(new NodeFailure(node, reason));
        if (reason instanceof EvictingNodeException) {
            evicting++;
        } else {
            excluded++;
        }
    }

    /** Why a round that had a quorum of grants still failed, for the attempt description. */
    void problem(String problem) {
        this.problem = problem;
    }

    int quorum() {
        return quorum;
    }

    boolean hasQuorum() {
        return granted >= quorum;
    }

    /** Whether a quorum of the granting nodes took the proposed token. */
    boolean tokenAccepted() {
        return accepted >= quorum;
    }

    /** The highest counter value any granting node returned. */
    long highestCounter() {
        return highestCounter;
    }

    /**
     * Whether the lock was up for grabs and nobody won: this round got some grants, enough nodes
     * answered for a quorum, yet too few were ours. Typically contenders woken by the same release
     * split the nodes between them; a short random delay, not the full retry delay, settles it.
     */
    boolean split() {
        return granted > 0 && !hasQuorum() && !unavailable();
    }

    /**
     * Whether too few nodes gave a counting answer for any quorum: the backend, not a competitor,
     * is the reason the round failed.
     */
    boolean unavailable() {
        return granted + taken < quorum;
    }

    /** E.g. {@code "2 of 5 nodes granted, 3 needed; 1 failed"}. */
    String describe() {
        StringBuilder text = new StringBuilder()
                .append(granted)
                .append(" of ")
                .append(nodes)
                .append(" nodes granted, ")
                .append(quorum)
                .append(" needed");
        if (taken > 0) {
            text.append("; ").append(taken).append(" held by another client");
        }
        if (excluded > 0) {
            text.append("; ").append(excluded).append(" in restart quarantine");
        }
        if (evicting > 0) {
            text.append("; ").append(evicting).append(" may evict keys");
        }
        if (!failures.isEmpty()) {
            text.append("; ").append(failures.size()).append(" did not count: ");
            for (int i = 0; i < failures.size(); i++) {
                text.append(i == 0 ? "" : ", ").append(failures.get(i));
            }
        }
        if (problem != null) {
            text.append("; ").append(problem);
        }
        return text.toString();
    }

    /**
     * The failure of an acquire whose last round was this one.
     *
     * @param elapsed the time since the acquire began, all of its wait
     */
    LockUnavailableException unavailableException(String lockName, Duration elapsed) {
        return new LockUnavailableException(
                lockName, elapsed, nodes, nodes - failures.size() + excluded + evicting, quorum, failures);
    }
}
