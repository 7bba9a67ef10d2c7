/** The onboarding API's base path (the spec's `/api/v1`): the route table and the links the API returns read it. */
export const API_BASE_PATH = "/api/v1";
