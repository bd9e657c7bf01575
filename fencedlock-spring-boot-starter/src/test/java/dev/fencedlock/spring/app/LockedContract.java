package dev.fencedlock.spring.app;

import dev.fencedlock.spring.Locked;

/** {@code @Locked} declared on an interface method, as Spring's {@code @Transactional} may be. */
public interface LockedContract {

    /** The lock name of the lease this call runs under; empty outside one. */
    @Locked("'contract:' + #p0")
    String leaseFromInterface(String key);
}
