package dev.fencedlock.spring.internal;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.spring.FencedWriteRefusedException;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Optional;
import org.springframework.util.ClassUtils;

/**
 * Finds the fence's refusal in a failure, however the data access layer wrapped it (a JPA
 * {@code RollbackException}, Spring's {@code ObjectOptimisticLockingFailureException}, a
 * {@code TransactionSystemException}), and states it as one {@link FencedWriteRefusedException}
 * whose cause is the core {@link FenceRefusedException}.
 */
final class Refusals {
    private static final boolean JPA_FENCING =
            ClassUtils.isPresent("dev.fencedlock.jpa.StaleFencingTokenException", Refusals.class.getClassLoader());

    private Refusals() {}

    /** The refusal that {@code failure} is or hides; empty when it is some other failure. */
    public static Optional<FencedWriteRefusedException> find(Throwable failure) {
        Map<Throwable, Boolean> seen = new IdentityHashMap<>();
        for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
            if (t instanceof FencedWriteRefusedException refusal) {
                return Optional.of(refusal);
            }
            if (t instanceof FenceRefusedException core) {
                return Optional.of(new FencedWriteRefusedException(core));
            }
            if (JPA_FENCING) {
                Optional<FencedWriteRefusedException> jpa = JpaRefusal.from(t, failure);
                if (jpa.isPresent()) {
                    return jpa;
                }
            }
        }
        return Optional.empty();
    }
}
