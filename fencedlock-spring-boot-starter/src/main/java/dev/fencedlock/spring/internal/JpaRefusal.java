package dev.fencedlock.spring.internal;

import dev.fencedlock.jpa.StaleFencingTokenException;
import dev.fencedlock.spring.FencedWriteRefusedException;
import java.util.Optional;

/** Kept apart from {@link Refusals} so that fencing-jpa stays optional: loaded only when present. */
final class JpaRefusal {
    private JpaRefusal() {}

    static Optional<FencedWriteRefusedException> from(Throwable t, Throwable failure) {
        if (!(t instanceof StaleFencingTokenException stale)) {
            return Optional.empty();
        }
        FencedWriteRefusedException refusal = new FencedWriteRefusedException(stale.getMessage(), stale.refusal());
        if (failure != stale.refusal()) {
            refusal.addSuppressed(failure);
        }
        return Optional.of(refusal);
    }
}
