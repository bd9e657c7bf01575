/**
 * How fencing is wired into Hibernate: {@link dev.fencedlock.jpa.internal.FencingIntegrator}
 * prepares the boot model, {@link dev.fencedlock.jpa.internal.FencedStateManagement} wraps the
 * mutation coordinators of fenced entities. Not an API: anything here may change in any release.
 */
package dev.fencedlock.jpa.internal;
