package dev.fencedlock.shedlock;

import dev.fencedlock.LockClient;
import dev.fencedlock.spring.FencedLockAutoConfiguration;
import net.javacrumbs.shedlock.core.LockProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * Spring Boot: a {@link FencedLockProvider} over the application's {@link LockClient} (the
 * fencedlock starter's, or the application's own), unless the application defines a ShedLock
 * {@link LockProvider} itself. With it, {@code @SchedulerLock} jobs need no other change to run
 * under fencedlock leases with their transactions fenced.
 */
@AutoConfiguration(after = FencedLockAutoConfiguration.class)
@ConditionalOnClass({LockProvider.class, FencedLockAutoConfiguration.class})
@ConditionalOnBean(LockClient.class)
public class FencedShedLockAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(LockProvider.class)
    FencedLockProvider fencedLockProvider(LockClient lockClient) {
        return new FencedLockProvider(lockClient);
    }
}
