package dev.fencedlock.spring.app;

import dev.fencedlock.spring.CurrentLease;
import org.springframework.stereotype.Service;

/** A bean whose {@code @Locked} methods are declared on its interface and its superclass only. */
@Service
public class InheritedLocks extends LockedBase implements LockedContract {

    @Override
    public String leaseFromInterface(String key) {
        return CurrentLease.get().map(lease -> lease.lockName()).orElse("");
    }

    @Override
    public String leaseFromSuperclass(String key) {
        return super.leaseFromSuperclass(key);
    }
}
