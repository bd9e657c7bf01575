package dev.fencedlock.jpa;

/**
 * What {@link NoLeaseBoundException} tells the developer to do. fencing-jpa's own advice is to bind
 * the lease with {@link Fencing#bind}; an integration that binds leases its own way (the Spring
 * starter's {@code @Locked}) names its way instead by providing an implementation through {@link
 * java.util.ServiceLoader} ({@code META-INF/services/dev.fencedlock.jpa.NoLeaseAdvice}). The first
 * one found on fencing-jpa's class loader is used. Implementations must be stateless.
 */
public interface NoLeaseAdvice {
    /** The sentence after "No lease is bound to thread ... for the <write>; ". */
    String advice();
}
