package dev.fencedlock.spring.internal;

import dev.fencedlock.jpa.StaleFencingTokenException;
import dev.fencedlock.spring.FencedWriteRefusedException;
import java.util.Optional;
import java.util.OptionalLong;

/** Kept apart from {@link Refusals} so that fencing-jpa stays optional: loaded only when present. */
final class JpaRefusal {
    private JpaRefusal() {}

    static Optional<FencedWriteRefusedException> from(Throwable t, Throwable failure) {
        if (!(t instanceof StaleFencingTokenException stale)) {
            return Optional.empty();
        }
        OptionalLong newer = stale.newerToken();
        return Optional.of(new FencedWriteRefusedException(
                stale.getMessage(),
                stale.lockName(),
                stale.staleToken(),
                newer.isPresent() ? newer.getAsLong() : null,
                failure));
    }
}
