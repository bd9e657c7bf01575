package dev.fencedlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.fencedlock.BackendStatus;
import dev.fencedlock.Lease;
import dev.fencedlock.LockClient;
import dev.fencedlock.spring.actuate.FencedLockEndpoint;
import dev.fencedlock.spring.app.Counters;
import dev.fencedlock.spring.app.Inventory;
import dev.fencedlock.spring.app.InventoryApplication;
import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.tck.TestObservationRegistry;
import io.micrometer.observation.tck.TestObservationRegistryAssert;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code fencedlock} Actuator endpoint lists the leases this instance holds
 * and each backend's status, and a {@code @Locked @Transactional} call is observed as the call with
 * its acquisition, fence guard and commit as children, the lock name never a low-cardinality value.
 */
@SpringBootTest(
        classes = {InventoryApplication.class, ObservabilityIT.Observed.class},
        properties = {"test.database=H2", "management.endpoints.web.exposure.include=health,fencedlock"})
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ObservabilityIT {
    /** The observations and keys docs/spring.md names. */
    private static final String LOCKED = "fencedlock.locked";

    private static final String ACQUIRE = "fencedlock.locked.acquire";
    private static final String GUARD = "fencedlock.locked.guard";
    private static final String COMMIT = "fencedlock.locked.commit";
    private static final String BACKEND = "fencedlock.backend";
    private static final String OUTCOME = "fencedlock.outcome";
    private static final String LOCK_NAME = "fencedlock.lock.name";

    @TestConfiguration(proxyBeanMethods = false)
    static class Observed {
        @Bean
        TestObservationRegistry observationRegistry() {
            return TestObservationRegistry.create();
        }
    }

    @Autowired
    FencedLockEndpoint endpoint;

    @Autowired
    LockClient client;

    @Autowired
    Inventory inventory;

    @Autowired
    TestObservationRegistry observations;

    @Autowired
    MeterRegistry meters;

    @Autowired
    Counters counters;

    @Test
    void theEndpointListsAHeldLeaseWithItsTokenAndBackendUntilItIsReleased() throws Exception {
        String name = "actuator-" + UUID.randomUUID();
        Lease lease = client.lock(name).acquire(Duration.ofSeconds(5), Duration.ofSeconds(30));
        FencedLockEndpoint.Report held;
        try {
            held = endpoint.fencedLock();
        } finally {
            lease.close();
        }
        List<FencedLockEndpoint.HeldLease> mine =
                held.leases().stream().filter(h -> h.lockName().equals(name)).toList();
        assertThat(mine).singleElement().satisfies(h -> {
            assertThat(h.token()).isEqualTo(lease.token());
            assertThat(h.backend()).isEqualTo("local");
            assertThat(h.thread()).isEqualTo(Thread.currentThread().getName());
            assertThat(h.timeLeftMillis()).isPositive().isLessThanOrEqualTo(30_000);
            assertThat(java.time.Instant.parse(h.since())).isBeforeOrEqualTo(java.time.Instant.now());
        });
        assertThat(held.backends()).extracting(BackendStatus::backend).containsExactly("local");
        // the answer as Actuator's JSON mapper (Jackson 3) writes it
        assertThat(JsonMapper.builder().build().writeValueAsString(held))
                .contains("\"lockName\":\"" + name + "\"", "\"token\":" + lease.token(), "\"backend\":\"local\"");

        assertThat(endpoint.fencedLock().leases()).noneMatch(h -> h.lockName().equals(name));
    }

    @Test
    void aLostLeaseLeavesTheEndpointAndReleasedLeasesLeaveNothingBehind() throws Exception {
        String prefix = "actuator-churn-" + UUID.randomUUID() + "-";
        for (int i = 0; i < 200; i++) {
            client.lock(prefix + i).acquire(Duration.ofSeconds(5)).close();
        }
        assertThat(endpoint.fencedLock().leases()).noneMatch(h -> h.lockName().startsWith(prefix));

        String lost = prefix + "lost";
        Lease lease = client.lock(lost).acquire(Duration.ofSeconds(5), Duration.ofMillis(300));
        CountDownLatch told = new CountDownLatch(1);
        lease.onLost((l, cause) -> told.countDown());
        assertThat(endpoint.fencedLock().leases()).anyMatch(h -> h.lockName().equals(lost));
        assertThat(told.await(10, TimeUnit.SECONDS)).isTrue();
        // leaseEnded comes before the lost-lease listeners are told
        assertThat(endpoint.fencedLock().leases()).noneMatch(h -> h.lockName().equals(lost));
        lease.close();
    }

    @Test
    void aLockedTransactionalCallIsObservedAsAcquireGuardAndCommitUnderTheCall() {
        String sku = "observed-" + UUID.randomUUID();
        String lockName = "inventory:" + sku;
        observations.clear();

        inventory.restock(sku, 5);

        TestObservationRegistryAssert.assertThat(observations)
                .hasNumberOfObservationsWithNameEqualTo(LOCKED, 1)
                .hasNumberOfObservationsWithNameEqualTo(ACQUIRE, 1)
                .hasNumberOfObservationsWithNameEqualTo(GUARD, 1)
                .hasNumberOfObservationsWithNameEqualTo(COMMIT, 1);
        TestObservationRegistryAssert.assertThat(observations)
                .hasObservationWithNameEqualTo(LOCKED)
                .that()
                .hasBeenStopped()
                .doesNotHaveParentObservation()
                .hasLowCardinalityKeyValue(OUTCOME, "acquired")
                .hasLowCardinalityKeyValue(BACKEND, "local")
                .hasHighCardinalityKeyValue(LOCK_NAME, lockName);
        TestObservationRegistryAssert.assertThat(observations)
                .hasObservationWithNameEqualTo(COMMIT)
                .that()
                .hasBeenStopped()
                .hasLowCardinalityKeyValue(OUTCOME, "committed");
        for (String step : List.of(ACQUIRE, GUARD, COMMIT)) {
            TestObservationRegistryAssert.assertThat(observations)
                    .hasObservationWithNameEqualTo(step)
                    .that()
                    .hasBeenStopped()
                    .hasHighCardinalityKeyValue(LOCK_NAME, lockName)
                    .hasParentObservationContextSatisfying(
                            parent -> assertThat(parent.getName()).isEqualTo(LOCKED));
        }
        for (String step : List.of(LOCKED, ACQUIRE, GUARD, COMMIT)) {
            TestObservationRegistryAssert.assertThat(observations)
                    .hasObservationWithNameEqualTo(step)
                    .that()
                    .doesNotHaveLowCardinalityKeyValueWithKey(LOCK_NAME)
                    .satisfies(context -> assertThat(context.getLowCardinalityKeyValues().stream())
                            .extracting(KeyValue::getValue)
                            .noneMatch(value -> value.contains(sku)));
        }
        // Spring Boot's meter handler makes timers of the observations: tagged with low-cardinality values only
        Timer call = meters.find(LOCKED).timer();
        assertThat(call).isNotNull();
        assertThat(call.getId().getTags()).extracting(Tag::getValue).noneMatch(value -> value.contains(sku));
    }

    @Test
    void aCommitRefusedAfterTheLeaseRanOutIsObservedAsAnErrorAndRolledBack() {
        String name = "observed-" + UUID.randomUUID();
        observations.clear();

        assertThatThrownBy(() -> counters.incrementStallingPastLease(name))
                .isInstanceOf(FencedWriteRefusedException.class);

        TestObservationRegistryAssert.assertThat(observations)
                .hasObservationWithNameEqualTo(COMMIT)
                .that()
                .hasBeenStopped()
                .hasError()
                .hasLowCardinalityKeyValue(OUTCOME, "rolled_back");
        TestObservationRegistryAssert.assertThat(observations)
                .hasObservationWithNameEqualTo(LOCKED)
                .that()
                .hasBeenStopped()
                .hasError()
                .hasHighCardinalityKeyValue(LOCK_NAME, "counter:" + name);
    }

    @Test
    void withoutExposureThereIsNeitherEndpointNorRegistry() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(FencedLockAutoConfiguration.class))
                .withPropertyValues("fencedlock.backend=local")
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(FencedLockEndpoint.class)
                        .doesNotHaveBean("fencedLockHeldLeases"));
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(FencedLockAutoConfiguration.class))
                .withPropertyValues("fencedlock.backend=local", "management.endpoints.web.exposure.include=fencedlock")
                .run(context -> assertThat(context).hasSingleBean(FencedLockEndpoint.class));
    }
}
