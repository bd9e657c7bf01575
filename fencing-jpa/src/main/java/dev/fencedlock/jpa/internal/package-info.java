/**
 * How fencing is wired into Hibernate: {@link dev.fencedlock.jpa.internal.FencingServiceContributor}
 * installs the transaction guard and the statement inspector, {@link
 * dev.fencedlock.jpa.internal.FencingIntegrator} checks and prepares the boot model. Not an API:
 * anything here may change in any release.
 */
package dev.fencedlock.jpa.internal;
