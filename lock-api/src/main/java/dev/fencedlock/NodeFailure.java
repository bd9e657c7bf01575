package dev.fencedlock;

import java.util.Objects;

/**
 * Why one backend node could not take part in an operation.
 *
 * @param node a printable node identity with any credentials masked, for example {@code
 *     redis://app:****@10.0.0.5:6379/0}
 * @param cause what went wrong on that node
 */
public record NodeFailure(String node, Throwable cause) {
    public NodeFailure {
        Objects.requireNonNull(node, "node");
        Objects.requireNonNull(cause, "cause");
    }

    @Override
    public String toString() {
        String message = cause.getMessage();
        return node + ": " + cause.getClass().getSimpleName() + (message == null ? "" : " (" + message + ")");
    }
}
