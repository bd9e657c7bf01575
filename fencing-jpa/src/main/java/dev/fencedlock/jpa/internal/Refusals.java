package dev.fencedlock.jpa.internal;

import dev.fencedlock.FenceRefusedException;
import dev.fencedlock.FenceRefusedException.Reason;
import dev.fencedlock.Lease;
import dev.fencedlock.jpa.StaleFencingTokenException;

/** The refusals fencing-jpa raises itself, each a {@link StaleFencingTokenException} over the core one. */
final class Refusals {
    private Refusals() {}

    /** The bound lease was no longer valid {@code when}. */
    static StaleFencingTokenException leaseNotValid(Lease lease, String when) {
        return StaleFencingTokenException.of(
                new FenceRefusedException(Reason.LEASE_NOT_VALID, lease.lockName(), lease.token(), null, when, null));
    }

    /** {@code entity} carried fence {@code carried}, newer than the bound lease's token. */
    static StaleFencingTokenException newerTokenRead(Lease lease, Object entity, long carried) {
        String entityName = entity.getClass().getName();
        return new StaleFencingTokenException(
                new FenceRefusedException(
                        Reason.NEWER_TOKEN_READ,
                        lease.lockName(),
                        lease.token(),
                        carried,
                        "entity " + entityName + " was written under a newer token",
                        null),
                entity,
                entityName);
    }
}
