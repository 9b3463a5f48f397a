package io.valueguard.query;

import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Maps {@link InstanceLookupServlet} beside Spring MVC's dispatcher, for lookups other instances forward here. */
@Configuration(proxyBeanMethods = false)
class InstanceLookupRegistration {

	@Bean
	ServletRegistrationBean<InstanceLookupServlet> instanceLookupServlet(LookupRouter router) {
		ServletRegistrationBean<InstanceLookupServlet> registration = new ServletRegistrationBean<>(
				new InstanceLookupServlet(router), InstanceLookupServlet.PATH + "*");
		registration.setName("instanceLookup");
		// ready before the first forward arrives, not compiled and initialised on it
		registration.setLoadOnStartup(1);
		return registration;
	}

}
