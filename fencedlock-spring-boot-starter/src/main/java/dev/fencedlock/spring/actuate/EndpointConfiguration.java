package dev.fencedlock.spring.actuate;

import dev.fencedlock.LockClient;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The Actuator endpoint {@code fencedlock} ({@link FencedLockEndpoint}) and the registry of held
 * leases it reads ({@link HeldLeases}), when Spring Boot Actuator is on the classpath and the
 * endpoint is available (its access not {@code none} and exposed, e.g. {@code
 * management.endpoints.web.exposure.include=health,fencedlock}). Imported by {@code
 * FencedLockAutoConfiguration}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
class EndpointConfiguration {
    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint(FencedLockEndpoint.class)
    HeldLeases fencedLockHeldLeases() {
        return new HeldLeases();
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    FencedLockEndpoint fencedLockEndpoint(LockClient client, HeldLeases leases) {
        return new FencedLockEndpoint(client, leases);
    }
}
