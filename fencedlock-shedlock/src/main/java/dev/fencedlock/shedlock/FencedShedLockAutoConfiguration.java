package dev.fencedlock.shedlock;

import dev.fencedlock.LockClient;
import dev.fencedlock.spring.FencedLockAutoConfiguration;
import io.micrometer.core.instrument.binder.MeterBinder;
import net.javacrumbs.shedlock.core.LockProvider;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Spring Boot: a {@link FencedLockProvider} over the application's {@link LockClient} (the
 * fencedlock starter's, or the application's own), unless the application defines a ShedLock
 * {@link LockProvider} itself. With it, {@code @SchedulerLock} jobs need no other change to run
 * under fencedlock leases with their transactions fenced. With Micrometer, runs skipped because
 * the backend could not answer are counted in {@value SkippedRunsMeter#NAME}.
 */
@AutoConfiguration(after = FencedLockAutoConfiguration.class)
@ConditionalOnClass({LockProvider.class, FencedLockAutoConfiguration.class})
@ConditionalOnBean(LockClient.class)
public class FencedShedLockAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    FencedLockProvider fencedLockProvider(LockClient lockClient, ObjectProvider<SkippedRuns> skipped) {
        return new FencedLockProvider(lockClient, skipped.getIfAvailable(() -> SkippedRuns.NONE));
    }

    /** The skipped-runs counter, bound to each registry as a {@link MeterBinder}. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(MeterBinder.class)
    static class Metrics {
        @Bean
        @ConditionalOnMissingBean
        SkippedRunsMeter fencedLockShedLockSkippedRuns() {
            return new SkippedRunsMeter();
        }
    }
}
