package net.javacrumbs.shedlock.support;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import net.javacrumbs.shedlock.core.ExtensibleLockProvider;
import net.javacrumbs.shedlock.core.LockProvider;

/**
 * ShedLock's {@link KeepAliveLockProvider} with a shorter minimum {@code lockAtMostFor} than its
 * public constructor's 30 s, so that tests see several extensions within seconds. Lives in
 * ShedLock's package only to reach that package-private constructor.
 */
public final class ShortKeepAlive {
    private ShortKeepAlive() {}

    public static LockProvider wrap(
            ExtensibleLockProvider provider, ScheduledExecutorService scheduler, Duration minimalLockAtMostFor) {
        return new KeepAliveLockProvider(provider, scheduler, minimalLockAtMostFor);
    }
}
