package io.valueguard.routing;

import io.valueguard.config.QueryProperties;
import io.valueguard.config.SecurityProperties;
import io.valueguard.config.ValueGuardProperties;

import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Maps {@link InstanceProtocolServlet} beside Spring MVC's dispatcher, for what other instances ask this one. */
@Configuration(proxyBeanMethods = false)
class InstanceProtocolRegistration {

	@Bean
	ServletRegistrationBean<InstanceProtocolServlet> instanceProtocolServlet(LookupRouter router, Listings listings,
			InstanceReports reports, QueryProperties properties, ValueGuardProperties settings,
			SecurityProperties security) {
		ServletRegistrationBean<InstanceProtocolServlet> registration = new ServletRegistrationBean<>(
				new InstanceProtocolServlet(router, listings, reports, properties,
						(int) settings.limits().maxRequestBytes().toBytes(), RequestSignature.of(security)), InstanceProtocolServlet.PATH + "/*");
		registration.setName("instanceProtocol");
		// ready before the first forward arrives, not compiled and initialised on it
		registration.setLoadOnStartup(1);
		return registration;
	}

}
