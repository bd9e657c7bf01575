package dev.fencedlock.redlock.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.fencedlock.LockConfig;
import dev.fencedlock.redlock.RedlockSettings;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class QuarantineTest {
    private static final Duration LEASE = Duration.ofSeconds(10);
    private static final Duration CONFIGURED = Duration.ofSeconds(30);

    private final Logger logger = (Logger) LoggerFactory.getLogger(Quarantine.class);
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();

    @BeforeEach
    void captureLogs() {
        logs.start();
        logger.addAppender(logs);
    }

    @AfterEach
    void releaseLogs() {
        logger.detachAppender(logs);
    }

    @Test
    void aConfiguredQuarantineRejectsLongerLeasesAndExtensionsNamingTheKeyAndBothValues() {
        Quarantine quarantine = new Quarantine(CONFIGURED, LEASE, true);
        assertThatThrownBy(() -> quarantine.noteLease(Duration.ofMinutes(5), "fixed lease of lock 'a'"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(RedlockSettings.RESTART_QUARANTINE)
                .hasMessageContaining("fixed lease of lock 'a' of 5m")
                .hasMessageContaining("30s");
        assertThatThrownBy(() -> quarantine.noteLease(Duration.ofMinutes(10), "extension of lock 'a'"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("extension of lock 'a' of 10m")
                .hasMessageContaining(RedlockSettings.RESTART_QUARANTINE + " 30s");
        assertThat(quarantine.nanos()).isEqualTo(CONFIGURED.toNanos());
    }

    @Test
    void aConfiguredQuarantineAcceptsLeasesUpToItself() {
        Quarantine quarantine = new Quarantine(CONFIGURED, LEASE, true);
        quarantine.noteLease(CONFIGURED, "fixed lease of lock 'a'");
        quarantine.noteLease(Duration.ofSeconds(1), "extension of lock 'a'");
        assertThat(quarantine.nanos()).isEqualTo(CONFIGURED.toNanos());
        assertThat(logs.list).isEmpty();
    }

    @Test
    void aClientLeaseTimeLongerThanTheConfiguredQuarantineIsRejectedNamingBothKeys() {
        assertThatThrownBy(() -> new Quarantine(CONFIGURED, Duration.ofMinutes(1), true))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(LockConfig.LEASE_TIME + " 1m")
                .hasMessageContaining(RedlockSettings.RESTART_QUARANTINE + " 30s");
    }

    @Test
    void withoutTheCheckALongerLeaseIsAcceptedAndLeavesTheQuarantineAsConfigured() {
        Quarantine quarantine = new Quarantine(Duration.ofNanos(1), LEASE, false);
        quarantine.noteLease(Duration.ofMinutes(5), "fixed lease of lock 'a'");
        assertThat(quarantine.nanos()).isEqualTo(1);
    }

    @Test
    void withoutConfigurationTheQuarantineFollowsTheLongestLeaseAndWarnsOnceAboutOtherClients() {
        Quarantine quarantine = new Quarantine(null, LEASE, true);
        assertThat(quarantine.nanos()).isEqualTo(LEASE.toNanos());
        quarantine.noteLease(Duration.ofSeconds(5), "fixed lease of lock 'a'");
        assertThat(logs.list).as("a shorter lease changes nothing").isEmpty();

        quarantine.noteLease(Duration.ofMinutes(5), "fixed lease of lock 'a'");
        quarantine.noteLease(Duration.ofMinutes(10), "extension of lock 'b'");
        assertThat(quarantine.nanos()).isEqualTo(Duration.ofMinutes(10).toNanos());
        assertThat(logs.list).singleElement().satisfies(event -> {
            assertThat(event.getLevel()).isEqualTo(Level.WARN);
            assertThat(event.getFormattedMessage())
                    .contains("fixed lease of lock 'a' of 5m")
                    .contains(LockConfig.LEASE_TIME + " 10s")
                    .contains(RedlockSettings.RESTART_QUARANTINE);
        });
    }
}
