package dev.fencedlock.redlock.internal;

import dev.fencedlock.LockClient;
import dev.fencedlock.LockConfig;
import dev.fencedlock.spi.LockClients;
import java.util.function.LongSupplier;

/**
 * Redlock clients whose token proposals read an injected wall clock, for the token-order scenarios
 * (in this package because the provider's test options are package-private).
 */
public final class RedlockWithClock {
    private RedlockWithClock() {}

    /** A redlock client on {@code config} whose wall clock is {@code wallClockMillis}. */
    public static LockClient create(LockConfig config, LongSupplier wallClockMillis) {
        RedlockProvider.Options options =
                new RedlockProvider.Options(RedlockProvider.Options.DEFAULT.tls(), wallClockMillis, true);
        return LockClients.create(config, runtime -> RedlockProvider.create(config, runtime, options));
    }
}
