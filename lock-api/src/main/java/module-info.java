/**
 * fencedlock's API: locks whose every lease carries a fencing token ({@code dev.fencedlock}), and
 * the SPI a backend implements ({@code dev.fencedlock.spi}). The binding of a lease to a thread is
 * shared only with the framework modules that bind one; the {@code local} backend's table only with
 * the test kit.
 */
module dev.fencedlock {
    requires org.slf4j;
    requires static java.net.http;

    exports dev.fencedlock;
    exports dev.fencedlock.spi;
    exports dev.fencedlock.internal.binding to
            dev.fencedlock.spring,
            dev.fencedlock.shedlock,
            dev.fencedlock.integration;
    exports dev.fencedlock.internal.local to
            dev.fencedlock.testkit;

    uses dev.fencedlock.spi.LockProviderFactory;
    uses dev.fencedlock.internal.binding.ThreadLeaseBinder;

    provides dev.fencedlock.spi.LockProviderFactory with
            dev.fencedlock.internal.local.LocalProviderFactory;
}
